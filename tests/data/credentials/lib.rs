//! Client for the metrics gateway.

pub const API_KEY: &str = "N3Jui71d6up7IQYT5n4hf99eNlVB0RvrXcBo";
pub const USER_AGENT: &str = "gateway-client/0.7.1";
pub const CHECKSUM: &str = "baa1af6723ff56eca645fe436d6582afe2dc655425a517ff452e74f487882c58";

pub fn endpoint() -> &'static str {
    "https://metrics.example.com/v1/push"
}
