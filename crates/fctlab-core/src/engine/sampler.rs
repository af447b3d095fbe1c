//! The `series` table: every interval, the series links' queues and
//! utilisation, the flows in progress, and the sampled flows' windows,
//! rates, RTT, drops and retransmissions.

use super::Engine;
use crate::sim::{Event, Time};

impl Engine {
    pub(super) fn sample(&mut self, now: Time) {
        self.sample_links(now);
        let el = self.series.element_id("network");
        self.series.push(now, self.metric.active_flows, el, self.active as f64);
        for i in 0..self.plan.cwnd_flows.len() {
            self.sample_flow(i, now);
        }
        let interval = self.plan.interval_ns;
        if self.pending > 0 || self.plan.stop_ns.is_some_and(|s| now + interval <= s) {
            self.q.schedule(now + interval, Event::Sample);
        }
    }

    /// Queue length and utilisation (busy time; delivered packets and the
    /// retransmitted part if asked for) of each series link.
    fn sample_links(&mut self, now: Time) {
        let interval = self.plan.interval_ns;
        let m = self.metric;
        for i in 0..self.plan.series_links.len() {
            let l = self.plan.series_links[i] as usize;
            let el = self.series.element_id(&self.links[l].name.clone());
            let link = &mut self.links[l];
            let qlen = link.queue.len_pkts() as f64;
            let util = link.utilisation_since_last(now, interval);
            let delivered = link.data_arrived_since_last();
            let retx = link.retx_utilisation_since_last(now, interval);
            let line_pkts = link.rate_bps * interval as f64 / 8e9 / self.plan.transport.pkt_bytes() as f64;
            self.series.push(now, m.queue_pkts, el, qlen);
            if now > 0 {
                self.series.push(now, m.utilization, el, util);
                if self.plan.utilization_pkts {
                    self.series
                        .push(now, m.utilization_pkts, el, delivered as f64 / line_pkts);
                }
                if self.plan.utilization_retx {
                    self.series.push(now, m.utilization_retx, el, retx);
                }
            }
        }
    }

    /// The `i`-th sampled flow (`plan.cwnd_flows`), if it has started and
    /// is still running.
    fn sample_flow(&mut self, i: usize, now: Time) {
        let m = self.metric;
        let mss = self.plan.transport.mss_bytes as f64;
        let f = self.plan.cwnd_flows[i] as usize;
        let Some((slot, rec)) = self.flows.get(f as u32) else {
            return;
        };
        let (Some(snd), Some(rcv)) = (slot.snd.as_ref(), slot.rcv.as_ref()) else {
            return;
        };
        if rec.start_ns > now {
            return;
        }
        let (w, srtt, delivered, sent) = (snd.cwnd_pkts(), snd.srtt_ns(), rcv.in_order_pkts(), slot.sent_bytes);
        let el = self.series.element_id(&format!("flow{f}"));
        self.series.push(now, m.cwnd_pkts, el, w);
        // Rates over the interval since the last sample (or since the flow
        // started, if that was later).
        let (prev_delivered, prev_sent, prev_t) = self.flow_prev[i];
        let since = prev_t.max(rec.start_ns);
        if now > since {
            let secs = (now - since) as f64 / 1e9;
            let throughput = delivered.saturating_sub(prev_delivered) as f64 * mss * 8.0 / secs;
            self.series.push(now, m.throughput_bps, el, throughput);
            let send_rate = sent.saturating_sub(prev_sent) as f64 * 8.0 / secs;
            self.series.push(now, m.send_rate_bps, el, send_rate);
        }
        if let Some(r) = srtt {
            self.series.push(now, m.rtt_ms, el, r as f64 / 1e6);
        }
        self.series.push(now, m.drops, el, rec.drops as f64);
        self.series.push(now, m.retransmits, el, snd.retransmits() as f64);
        // The scheme's own estimates, named on first use: runs of other
        // schemes keep their metrics.
        let series = &mut self.series;
        snd.model(&mut |name, v| {
            let m = series.metric_id(name);
            series.push(now, m, el, v);
        });
        self.flow_prev[i] = (delivered, sent, now);
    }
}
