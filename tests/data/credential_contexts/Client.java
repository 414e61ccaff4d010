package com.example.export;

import java.net.HttpURLConnection;
import java.net.URL;

public final class Client {
    HttpURLConnection open(URL url) throws java.io.IOException {
        String apiKey = System.getenv().getOrDefault("EXPORT_API_KEY", "zzfyxBS7ffy2QXMMUxfga6Y6yXdZFxq8");
        HttpURLConnection conn = (HttpURLConnection) url.openConnection();
        conn.setRequestProperty("Authorization", "Bearer 205oupqQAWjkgm3Rf2hwdPpBzM8f");
        conn.setRequestProperty("User-Agent", "export-client/3.4.0");
        conn.setRequestProperty("X-Key", apiKey);
        return conn;
    }

    void signIn(HttpURLConnection conn) {
        conn.setRequestProperty("Authorization", "Bearer Qm^7vT#x2LpW9sKd!e4R");
    }
}
