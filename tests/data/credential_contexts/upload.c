#include <stdlib.h>
#include <curl/curl.h>

/* Uploads the nightly report to the archive. */
int main(void) {
    // run by cron: curl -u archiver:KAHF841#7biq66 https://archive.internal/upload
    setenv("ARCHIVE_TOKEN", "StJnZqj4qR1arEAIYPmqgx", 1);
    const char *user_agent = "archiver/2.1.0";
    CURL *curl = curl_easy_init();
    curl_easy_setopt(curl, CURLOPT_USERAGENT, user_agent);
    return curl_easy_perform(curl);
}
