//! Run a JSON scenario from a file and print the engine's counters; used for
//! profiling the engine without Python: `cargo run --release --example run_json -- s.json`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: run_json SCENARIO.json");
    let text = std::fs::read_to_string(&path).expect("readable scenario");
    let plan = match fctlab_core::from_json(&text) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let out = fctlab_core::run(plan);
    // A digest of every flow record, to check that a change leaves results as they were.
    let mut h: u64 = 0xcbf29ce484222325;
    for r in &out.flows {
        for x in [
            r.flow_id,
            r.sender as u64,
            r.size_bytes,
            r.start_ns,
            r.finish_ns.unwrap_or(u64::MAX),
            r.acked_ns.unwrap_or(u64::MAX),
            r.retransmits,
            r.drops,
            r.marks,
            r.ps_fct_ns.unwrap_or(u64::MAX),
        ] {
            h = (h ^ x).wrapping_mul(0x100000001b3);
        }
    }
    println!("flows digest {h:016x}");
    // Everything else a run reports: counters (the event count apart, which
    // measures the engine rather than the network), series, link totals, end time.
    let mut g: u64 = 0xcbf29ce484222325;
    let mut mix = |x: u64| g = (g ^ x).wrapping_mul(0x100000001b3);
    let c = &out.counters;
    for x in [
        c.packet_hops,
        c.data_delivered,
        c.data_sent,
        c.data_dropped,
        c.marks,
        c.packets_sent,
        c.packets_delivered,
        c.packets_dropped,
        c.max_queue_excess as u64,
        c.flows_started,
        c.flows_completed,
        out.end_ns,
        out.in_network,
    ] {
        mix(x);
    }
    let s = &out.series;
    for i in 0..s.t_ns.len() {
        mix(s.t_ns[i]);
        mix(s.metric[i] as u64);
        mix(s.element[i] as u64);
        mix(s.value[i].to_bits());
    }
    for l in &out.links {
        for x in [l.busy_ns, l.retx_busy_ns, l.pkts_sent, l.retx_pkts_sent] {
            mix(x);
        }
    }
    println!("other digest {g:016x}");
    let c = &out.counters;
    println!(
        "wall {:.3} s, sim {:.3} s, events {} ({:.2} M/s), data delivered {} ({:.3} M/s), hops {} ({:.2} M/s), flows {}/{}",
        out.wall_s,
        out.end_ns as f64 / 1e9,
        c.events,
        c.events as f64 / out.wall_s / 1e6,
        c.data_delivered,
        c.data_delivered as f64 / out.wall_s / 1e6,
        c.packet_hops,
        c.packet_hops as f64 / out.wall_s / 1e6,
        c.flows_completed,
        c.flows_started
    );
}
