//! The standard datacenter workloads as built-in size laws:
//! `sizes = { dist = "websearch" }` and so on.
//!
//! Each law is a CDF table in `cdf/<name>.txt`, compiled in, headed by its
//! source (the paper and figure that measured it, and the public tabulation it
//! is taken from, with its commit). Every table is in bytes; a draw is rounded
//! up to whole packets of `mss_bytes`, exactly as `empirical` reads a CDF with
//! `unit = "bytes"` ([`super::empirical`]), and the mean in packets (which
//! sets the arrival rate for a load) is computed exactly from the rows.
//!
//! Two readings, each the one its tabulation's own generator uses:
//! piecewise linear between rows (HPCC's `traffic_gen/custom_rand.py`; ns-2's
//! `RandomVariable/Empirical` with `interpolation_ 2`, as the pFabric and PIAS
//! scripts load their CDFs), or a step CDF (a draw is the first row whose
//! cumulative probability reaches it: Homa's simulator,
//! `MsgSizeDistributions.cc`).

use super::empirical::{check_cdf, parse_cdf_text};
use super::sizes::{SizeDist, SizeEntry};
use crate::config::{documented, ConfigError, Entry, NoParams};

/// One built-in table: its name, the text of its file and its reading.
pub struct Law {
    pub name: &'static str,
    pub text: &'static str,
    /// Piecewise linear between rows (true) or a step CDF (false).
    pub interpolate: bool,
}

/// Every built-in table, in the order `fctlab list` shows them.
pub const LAWS: &[Law] = &[
    law("websearch", include_str!("cdf/websearch.txt"), true),
    law("datamining", include_str!("cdf/datamining.txt"), true),
    law("fb-hadoop", include_str!("cdf/fb-hadoop.txt"), false),
    law("fb-webserver", include_str!("cdf/fb-webserver.txt"), false),
    law("fb-cache", include_str!("cdf/fb-cache.txt"), false),
    law("hpcc-fb-hadoop", include_str!("cdf/hpcc-fb-hadoop.txt"), true),
    law("google-search-rpc", include_str!("cdf/google-search-rpc.txt"), false),
    law("google-all-rpc", include_str!("cdf/google-all-rpc.txt"), false),
    law("homa-w1", include_str!("cdf/homa-w1.txt"), true),
    law("homa-w5", include_str!("cdf/homa-w5.txt"), false),
];

const fn law(name: &'static str, text: &'static str, interpolate: bool) -> Law {
    Law {
        name,
        text,
        interpolate,
    }
}

impl Law {
    /// The table's rows, (bytes, cumulative probability).
    pub fn rows(&self) -> Vec<(f64, f64)> {
        let rows = parse_cdf_text(self.text, self.name, self.name).expect("built-in tables are well formed");
        rows.iter().map(|r| (r[0], r[1])).collect()
    }

    /// The mean size in bytes of the law the table describes (before draws are
    /// rounded up to whole packets): for a step CDF the sum of size x
    /// probability, for a piecewise-linear one the midpoint of each piece x its
    /// probability (the first row an atom of probability its cumulative).
    pub fn mean_bytes(&self) -> f64 {
        let rows = self.rows();
        let mut mean = rows[0].0 * rows[0].1;
        for w in rows.windows(2) {
            let (a, b) = (w[0], w[1]);
            let size = if self.interpolate { (a.0 + b.0) / 2.0 } else { b.0 };
            mean += size * (b.1 - a.1);
        }
        mean
    }

    /// The law in packets of `mss_bytes` (each draw rounded up).
    pub fn dist(&self, mss_bytes: u32, field: &str) -> Result<SizeDist, ConfigError> {
        let rows = parse_cdf_text(self.text, self.name, field)?;
        Ok(SizeDist::Empirical(check_cdf(
            &rows,
            mss_bytes as f64,
            field,
            self.interpolate,
        )?))
    }
}

/// The table named `name` (a registered built-in law).
pub fn find(name: &str) -> &'static Law {
    LAWS.iter()
        .find(|l| l.name == name)
        .expect("every built-in entry has its table")
}

/// A registry entry for the table named `$name`: no parameters (any key is
/// refused, naming it).
macro_rules! entry {
    ($name:literal, $description:literal) => {
        Entry {
            name: $name,
            description: $description,
            table: None,
            params: documented::<NoParams>,
            requires: None,
            factory: |t, cx| {
                t.parse::<NoParams>()?;
                find($name).dist(cx.mss_bytes, t.field)
            },
        }
    };
}

pub const WEBSEARCH: SizeEntry = entry!(
    "websearch",
    "web search (Alizadeh et al., DCTCP, SIGCOMM 2010, Fig. 4; HPCC's table), piecewise linear: mean 1,711,250 B"
);
pub const DATAMINING: SizeEntry = entry!(
    "datamining",
    "data mining (Greenberg et al., VL2, SIGCOMM 2009, Fig. 2; the pFabric/PIAS table, 1460-B packets), piecewise linear: mean 7,470,236 B"
);
pub const FB_HADOOP: SizeEntry = entry!(
    "fb-hadoop",
    "Facebook Hadoop (Roy et al., SIGCOMM 2015; Homa's W4 table), step CDF: mean 127,796.6 B"
);
pub const FB_WEBSERVER: SizeEntry = entry!(
    "fb-webserver",
    "Facebook web servers, intra-cluster (Roy et al., SIGCOMM 2015; Homa's simulator's table), step CDF: mean 62,874.3 B"
);
pub const FB_CACHE: SizeEntry = entry!(
    "fb-cache",
    "Facebook cache followers, intra-cluster (Roy et al., SIGCOMM 2015; Homa's simulator's table), step CDF: mean 692,975.6 B"
);
pub const HPCC_FB_HADOOP: SizeEntry = entry!(
    "hpcc-fb-hadoop",
    "Facebook Hadoop (Roy et al., SIGCOMM 2015) as HPCC tabulates it (FB_Hadoop), piecewise linear: mean 120,420.75 B"
);
pub const GOOGLE_SEARCH_RPC: SizeEntry = entry!(
    "google-search-rpc",
    "Google search RPCs (Homa, Montazeri et al., SIGCOMM 2018, W2), step CDF: mean 440.79 B"
);
pub const GOOGLE_ALL_RPC: SizeEntry = entry!(
    "google-all-rpc",
    "Google RPCs of all applications (Homa, Montazeri et al., SIGCOMM 2018, W3), step CDF: mean 2,927.35 B"
);
pub const HOMA_W1: SizeEntry = entry!(
    "homa-w1",
    "Homa's W1: Facebook memcached (Atikoglu et al., SIGMETRICS 2012) as Homa's simulator draws it, 1-15 B atoms and a generalized Pareto tail: mean 185.16 B"
);
pub const HOMA_W5: SizeEntry = entry!(
    "homa-w5",
    "Homa's W5: web search (DCTCP) in Homa's 400-row table of packets, at 1430 B a packet, step CDF: mean 2,494,926.8 B"
);

/// Homa's W2, W3 and W4: the same tables under Homa's names.
pub const HOMA_W2: SizeEntry = alias(
    GOOGLE_SEARCH_RPC,
    "homa-w2",
    "Homa's W2 (Montazeri et al., SIGCOMM 2018): the google-search-rpc table",
);
pub const HOMA_W3: SizeEntry = alias(
    GOOGLE_ALL_RPC,
    "homa-w3",
    "Homa's W3 (Montazeri et al., SIGCOMM 2018): the google-all-rpc table",
);
pub const HOMA_W4: SizeEntry = alias(
    FB_HADOOP,
    "homa-w4",
    "Homa's W4 (Montazeri et al., SIGCOMM 2018): the fb-hadoop table",
);

const fn alias(e: SizeEntry, name: &'static str, description: &'static str) -> SizeEntry {
    Entry { name, description, ..e }
}
