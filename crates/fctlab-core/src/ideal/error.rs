//! The one error type of the `ideal` module: bad input is refused with the name of
//! the argument, the offending value and what is allowed, never a panic.

use std::fmt;

/// An argument of an `ideal` function was refused.
#[derive(Clone, Debug, PartialEq)]
pub struct IdealError {
    /// The argument as the caller named it, with an index where it is one element
    /// of a list (`sizes_bytes[3]`, `routes[2][0]`).
    pub arg: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl fmt::Display for IdealError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.arg, self.message)
    }
}

impl std::error::Error for IdealError {}

/// Shorthand for the module's results.
pub type IdealResult<T> = Result<T, IdealError>;

/// Build an [`IdealError`].
pub(crate) fn bad<T>(arg: impl Into<String>, message: impl Into<String>) -> IdealResult<T> {
    Err(IdealError {
        arg: arg.into(),
        message: message.into(),
    })
}

/// `x` must be finite and > 0.
pub(crate) fn positive(arg: &str, x: f64) -> IdealResult<f64> {
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        bad(arg, format!("must be a finite number > 0, got {x}"))
    }
}

/// `x` must be finite and >= 0.
pub(crate) fn non_negative(arg: &str, x: f64) -> IdealResult<f64> {
    if x.is_finite() && x >= 0.0 {
        Ok(x)
    } else {
        bad(arg, format!("must be a finite number >= 0, got {x}"))
    }
}

/// An offered load must lie in [0, 1): at 1 or above the queue is unstable and
/// the mean sojourn time is infinite.
pub(crate) fn load(arg: &str, rho: f64) -> IdealResult<f64> {
    if rho.is_finite() && (0.0..1.0).contains(&rho) {
        Ok(rho)
    } else {
        bad(arg, format!("must be in [0, 1) (a stable queue), got {rho}"))
    }
}
