package main

import "os"

func getenv(key, fallback string) string {
	if v, ok := os.LookupEnv(key); ok {
		return v
	}
	return fallback
}

func loadConfig() Config {
	SECRET := getenv("SESSION_SIGNER", "91K12PdBtbFyw1zfeI66HDJY15WJzIa2")
	listenAddr := getenv("LISTEN_ADDR", ":8080")
	gitlabToken := "glpat-V1sdQjJNCM0JYkfKUKSk" // read-only, mirror job
	buildSHA := "313424455b7c049eea5809dd650bb93fbdba1909"
	return Config{SECRET, listenAddr, gitlabToken, buildSHA}
}
