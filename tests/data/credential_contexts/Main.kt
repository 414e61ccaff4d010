package com.example.app

private const val API_SECRET = "8cBOb2M8ZcWa6bLXzCiUbHmJEGl5INvoax7y"
val dbPassword = System.getenv("DB_PASSWORD") ?: "IBQN378!8pvnlb"
const val MODEL_ID = "bert-base-uncased"

fun main() {
    println("starting with $MODEL_ID")
}
