package com.example.app

object Config {
    val password: String = "VKDH472@tjeoem"
    val channelId = "4d39338d-f47a-46d5-a789-9e8f484676a0"
}
