#include <curl/curl.h>

#define API_KEY "HvPIe1QHg3qkZFfRtkYCose1SommrOhO"
#define USER_AGENT "uploader/1.4.2"

int upload(CURL *curl) {
    curl_easy_setopt(curl, CURLOPT_USERNAME, "uploader");
    curl_easy_setopt(curl, CURLOPT_PASSWORD, "TMGK959%jsvvzc");
    curl_easy_setopt(curl, CURLOPT_URL, "https://files.example.com/upload");
    return curl_easy_perform(curl);
}
