use std::env;

#[pymodule_init]
fn init(m: &pyo3::Bound<'_, pyo3::types::PyModule>) -> pyo3::PyResult<()> {
    m.add("__version__", "0.9.1")
}

fn client() -> reqwest::blocking::RequestBuilder {
    let token = env::var("METRICS_TOKEN").unwrap_or_else(|_| "1AKIKmVRo9cDnlXdreSeXLfu".to_string());
    let user_agent = "metrics-push/0.9.1";
    let client = reqwest::blocking::Client::new();
    let url = "https://metrics.example.com/v1/push";
    let req = client.get(url).basic_auth("pusher", Some("Mq0wgnp25jDrXEHmGwUk"));
    req.header("User-Agent", user_agent).header("X-Token", token)
}
