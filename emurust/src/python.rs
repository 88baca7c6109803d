use pyo3::prelude::*;

#[pymodule]
#[pyo3(name = "_emurust")]
fn emurust_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", crate::VERSION)?;
    Ok(())
}
