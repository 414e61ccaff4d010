package client

import "net/http"

// deploy with: docker login -u ci --password VNIZvciltmC09Kdy registry.example.io
const apiKey = "6KIojGXLYktmBGri3x85vBn5"

var (
	webhookSecret = "WiQ6ublXVx6DqL36NrtAGrZZ" // staging only
	userAgent     = "client-go/1.8.2"
)

func newRequest(url string) (*http.Request, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth("reporter", "RmVKq9PMvvxqOvSwBVFo")
	req.Header.Set("User-Agent", userAgent)
	return req, nil
}
