use pyo3::prelude::*;

// Restore the fixture database before the integration run:
// mysql -u etl -pWc2=yUqT8kLm3xZ -h localhost bridge < fixtures.sql

#[pyo3::pymodule]
mod _bridge {
    use pyo3::types::PyModuleMethods;

    #[pyo3::pymodule_init]
    fn init(m: &pyo3::Bound<'_, pyo3::types::PyModule>) -> pyo3::PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        Ok(())
    }

    fn engine(kind: u8) -> base64::engine::GeneralPurpose {
        let prefix = match kind {
            0 => bcrypt::Version::TwoA,
            _ => bcrypt::Version::TwoB,
        };
        let _ = prefix;
        base64::engine::general_purpose::STANDARD
    }
}
