//! The `[transport.rcp]` table of RCP's end hosts.

use crate::config::{duration_ms, ConfigError, ParamDoc, Params};
use crate::protocols::rcp::router::RcpMode;
use serde::{Deserialize, Serialize};

/// `[transport.rcp]`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RcpHostCfg {
    /// `ps` (default): SYNs resent with exponential back-off from
    /// `syn_first_retx_ms`, spread per flow, and no rate probes; `ns2`: the
    /// patch's hosts (SYN every `syn_retx_ms`, probes).
    pub mode: RcpMode,
    /// Mode `ps`: the first SYN retransmission, ×(1 + u), u in [0, 1) drawn
    /// from the flow id; each next one doubles, up to `syn_retx_ms`.
    pub syn_first_retx_ms: f64,
    /// SYN retransmission interval: ns-2 RCP patch `rcp-host.cc` SYN_DELAY 0.5 s.
    pub syn_retx_ms: f64,
    /// Longest interval between rate probes: ns-2 RCP patch, min(0.5 s, RTT).
    pub max_probe_interval_ms: f64,
    /// RTTs after the last send before unacknowledged packets are resent:
    /// ns-2 RCP patch, 2·RTT after the FIN.
    pub recovery_rtts: f64,
    /// Send the first data packet with the SYN (right behind it, at start)
    /// instead of after the SYN-ACK, as TCP Fast Open (RFC 7413) puts data
    /// in the SYN: a one-packet flow then ends half an RTT after it starts.
    pub data_with_syn: bool,
}

impl Default for RcpHostCfg {
    fn default() -> Self {
        RcpHostCfg {
            mode: RcpMode::Ps,
            syn_first_retx_ms: 10.0,
            syn_retx_ms: 500.0,
            max_probe_interval_ms: 500.0,
            recovery_rtts: 2.0,
            data_with_syn: false,
        }
    }
}

impl RcpHostCfg {
    pub fn check(&self) -> Result<(), ConfigError> {
        for (k, v) in [
            ("syn_first_retx_ms", self.syn_first_retx_ms),
            ("syn_retx_ms", self.syn_retx_ms),
            ("max_probe_interval_ms", self.max_probe_interval_ms),
            ("recovery_rtts", self.recovery_rtts),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(ConfigError {
                    field: format!("transport.rcp.{k}"),
                    message: format!("must be a positive number, got {v}"),
                });
            }
        }
        duration_ms("transport.rcp.syn_retx_ms", self.syn_retx_ms, true)?;
        duration_ms("transport.rcp.syn_first_retx_ms", self.syn_first_retx_ms, true)?;
        duration_ms("transport.rcp.max_probe_interval_ms", self.max_probe_interval_ms, true)?;
        if self.recovery_rtts > 1e3 {
            return Err(ConfigError::new(
                "transport.rcp.recovery_rtts",
                format!("must be at most 1000 RTTs, got {}", self.recovery_rtts),
            ));
        }
        Ok(())
    }
}

impl Params for RcpHostCfg {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("mode", "ps: SYN back-off spread per flow, no rate probes (a burst of SYNs larger than the buffer gets through; probes from many slow flows would fill the link); ns2: the released ns-2 RCP patch rcp-host.cc"),
        ParamDoc::new("syn_first_retx_ms", "fctlab (mode ps): first SYN retransmission, doubling up to syn_retx_ms (every timer: at least 0.001 ms)"),
        ParamDoc::new("syn_retx_ms", "ns-2 RCP patch rcp-host.cc SYN_DELAY 0.5 s"),
        ParamDoc::new("max_probe_interval_ms", "ns-2 RCP patch: REF probes every min(0.5 s, RTT) while interval > RTT"),
        ParamDoc::new("recovery_rtts", "ns-2 RCP patch: resend unacknowledged packets 2 RTT after the FIN"),
        ParamDoc::new("data_with_syn", "send the first data packet right behind the SYN, as TCP Fast Open (RFC 7413) carries data in the SYN; false: the first data leaves on the SYN-ACK"),
    ];
    fn validate(&self, _field: &str) -> Result<(), ConfigError> {
        self.check()
    }
}
