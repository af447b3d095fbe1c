//! Flows and matrices from text files, so that a million flows need no TOML.
//!
//! - `arrivals = "file"` with `flows_file`: one flow per line, `start_s
//!   size_pkts src dst` (htsim's flow-list format), sorted by start; flow i
//!   of the file is the entry's i-th flow.
//! - `matrix = "file"` with `matrix_file`: one pair per line, `src dst
//!   [weight]` (weight 1 when absent).
//!
//! Blank lines and lines starting with `#` are skipped; a relative path is
//! taken from the current directory. A bad line is refused with its number.

use crate::config::{err, ConfigError, MAX_FLOW_PKTS, MAX_SECONDS};
use crate::sim::{secs_to_ns, Time};
use std::sync::Arc;

/// One flow of a flows file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FileFlow {
    pub start_ns: Time,
    pub pkts: u64,
    pub src: u32,
    pub dst: u32,
}

/// Call `f` with the number and the columns of each line of a file that
/// carries data.
fn each_line(
    path: &str,
    field: &str,
    mut f: impl FnMut(usize, &[&str]) -> Result<(), ConfigError>,
) -> Result<(), ConfigError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| ConfigError::new(field, format!("cannot read {path:?}: {e}")))?;
    let mut cols: Vec<&str> = Vec::with_capacity(4);
    for (i, line) in text.lines().enumerate() {
        let l = line.trim_start();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        cols.clear();
        cols.extend(l.split_whitespace());
        f(i + 1, &cols)?;
    }
    Ok(())
}

/// Host `v` of line `n` exists among `hosts`.
fn host(field: &str, n: usize, what: &str, v: &str, hosts: usize) -> Result<u32, ConfigError> {
    let h: u64 = v
        .parse()
        .map_err(|_| ConfigError::new(field, format!("line {n}: {what} must be a host index, got {v:?}")))?;
    if h as usize >= hosts {
        return err(
            field,
            format!(
                "line {n}: {what} host {h} does not exist: hosts are 0..{}",
                hosts.saturating_sub(1)
            ),
        );
    }
    Ok(h as u32)
}

/// Read a flows file for a topology of `hosts` hosts.
pub fn read_flows(path: &str, field: &str, hosts: usize) -> Result<Arc<[FileFlow]>, ConfigError> {
    let mut out: Vec<FileFlow> = Vec::new();
    each_line(path, field, |n, w| {
        if w.len() != 4 {
            return err(
                field,
                format!(
                    "line {n}: expected 4 columns (start_s size_pkts src dst), got {}",
                    w.len()
                ),
            );
        }
        let start: f64 = w[0]
            .parse()
            .map_err(|_| ConfigError::new(field, format!("line {n}: start_s must be a number, got {:?}", w[0])))?;
        if !(start.is_finite() && (0.0..=MAX_SECONDS).contains(&start)) {
            return err(
                field,
                format!("line {n}: start_s must be 0 to {MAX_SECONDS:e} s, got {start}"),
            );
        }
        let pkts: u64 = w[1].parse().map_err(|_| {
            ConfigError::new(
                field,
                format!("line {n}: size_pkts must be a whole number of packets, got {:?}", w[1]),
            )
        })?;
        if pkts == 0 || pkts > MAX_FLOW_PKTS {
            return err(
                field,
                format!("line {n}: size_pkts must be 1 to {MAX_FLOW_PKTS}, got {pkts}"),
            );
        }
        let (src, dst) = (host(field, n, "src", w[2], hosts)?, host(field, n, "dst", w[3], hosts)?);
        if src == dst {
            return err(field, format!("line {n}: src and dst are both host {src}"));
        }
        let start_ns = secs_to_ns(start);
        if out.last().is_some_and(|f| f.start_ns > start_ns) {
            return err(
                field,
                format!("line {n}: starts before the line above (the flows must be sorted by start_s)"),
            );
        }
        out.push(FileFlow {
            start_ns,
            pkts,
            src,
            dst,
        });
        Ok(())
    })?;
    if out.is_empty() {
        return err(field, format!("{path:?} lists no flows"));
    }
    if out.len() as u64 > super::arrivals::MAX_FLOWS {
        return err(field, "more flows than flow ids (32-bit)");
    }
    Ok(out.into())
}

/// A traffic matrix read from a file: its (src, dst) pairs and their weights.
pub type Matrix = (Vec<(u32, u32)>, Vec<f64>);

/// Read a matrix file: its pairs and their weights.
pub fn read_matrix(path: &str, field: &str, hosts: usize) -> Result<Matrix, ConfigError> {
    let (mut pairs, mut weights) = (Vec::new(), Vec::new());
    each_line(path, field, |n, w| {
        if !(2..=3).contains(&w.len()) {
            return err(
                field,
                format!("line {n}: expected src dst [weight], got {} columns", w.len()),
            );
        }
        let (src, dst) = (host(field, n, "src", w[0], hosts)?, host(field, n, "dst", w[1], hosts)?);
        if src == dst {
            return err(field, format!("line {n}: src and dst are both host {src}"));
        }
        let weight: f64 = match w.get(2) {
            None => 1.0,
            Some(x) => x
                .parse()
                .map_err(|_| ConfigError::new(field, format!("line {n}: weight must be a number, got {x:?}")))?,
        };
        if !(weight.is_finite() && weight > 0.0) {
            return err(
                field,
                format!("line {n}: weight must be a positive number, got {weight}"),
            );
        }
        pairs.push((src, dst));
        weights.push(weight);
        Ok(())
    })?;
    if pairs.is_empty() {
        return err(field, format!("{path:?} lists no pairs"));
    }
    Ok((pairs, weights))
}
