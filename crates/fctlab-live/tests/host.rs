//! Hosts on the loopback interface (no root needed): flows complete between a
//! sender and a receiver host, and forged datagrams are counted, not obeyed.

use fctlab_core::net::{Packet, PacketKind};
use fctlab_live::host::{self, HostCfg};
use fctlab_live::{mono_ns, wire};
use std::net::UdpSocket;
use std::thread;
use std::time::Duration;

fn scenario() -> serde_json::Value {
    serde_json::json!({"network": {"bottleneck_bps": 10e6}, "flows": [{"size_pkts": 1}]})
}

fn flow(id: u32, pkts: u64, start_ns: u64, peer: &str) -> serde_json::Value {
    serde_json::json!({"flow": id, "start_ns": start_ns, "size_bytes": pkts * 1000, "size_pkts": pkts, "peer": peer})
}

/// A loopback address with a port the kernel says is free now (so runs of
/// these tests side by side do not meet each other's datagrams).
fn free_addr() -> String {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string()
}

fn cfg(v: serde_json::Value) -> HostCfg {
    serde_json::from_value(v).unwrap()
}

#[test]
fn flows_complete_over_loopback() {
    let stop = std::env::temp_dir().join(format!("fctlab-live-test-stop-{}", std::process::id()));
    let _ = std::fs::remove_file(&stop);
    let epoch = mono_ns() + 200_000_000;
    let (ps, pr) = (free_addr(), free_addr());
    let (ps, pr) = (ps.as_str(), pr.as_str());
    let recv = cfg(
        serde_json::json!({"scenario": scenario(), "epoch_ns": epoch, "bind": pr,
        "recv": [flow(0, 50, 0, ps), flow(1, 3, 0, ps)], "stop_file": stop.to_str().unwrap(),
        "deadline_ns": 10_000_000_000u64, "peer_timeout_ns": 5_000_000_000u64}),
    );
    let send = cfg(
        serde_json::json!({"scenario": scenario(), "epoch_ns": epoch, "bind": ps,
        "send": [flow(0, 50, 0, pr), flow(1, 3, 20_000_000, pr)], "stop_file": null,
        "deadline_ns": 10_000_000_000u64, "peer_timeout_ns": 5_000_000_000u64}),
    );
    let r = thread::spawn(move || host::run(&recv).unwrap());
    let s = host::run(&send).unwrap();
    std::fs::write(&stop, b"").unwrap();
    let r = r.join().unwrap();
    let _ = std::fs::remove_file(&stop);
    assert!(s.flows.iter().all(|f| f.status == "done"), "{:?}", s.flows);
    assert!(r.flows.iter().all(|f| f.status == "done"), "{:?}", r.flows);
    for f in &r.flows {
        let start = if f.flow == 1 { 20_000_000 } else { 0 };
        let fin = f.finish_ns.unwrap();
        // At least the handshake's and the data's local round trips; well under a second.
        assert!(fin > start && fin < start + 1_000_000_000, "{f:?}");
    }
    assert_eq!(
        s.refused.total() + r.refused.total(),
        0,
        "sender {:?} receiver {:?}",
        s.refused.counts,
        r.refused.counts
    );
}

#[test]
fn forged_datagrams_are_counted_and_ignored() {
    let stop = std::env::temp_dir().join(format!("fctlab-live-test-stop2-{}", std::process::id()));
    let _ = std::fs::remove_file(&stop);
    let epoch = mono_ns() + 100_000_000;
    let u = UdpSocket::bind("127.0.0.1:0").unwrap();
    let us = u.local_addr().unwrap().to_string();
    let pr = free_addr();
    let pr = pr.as_str();
    let recv = cfg(
        serde_json::json!({"scenario": scenario(), "epoch_ns": epoch, "bind": pr,
        "recv": [flow(0, 5, 0, &us)], "stop_file": stop.to_str().unwrap(),
        "deadline_ns": 5_000_000_000u64, "peer_timeout_ns": 5_000_000_000u64}),
    );
    let r = thread::spawn(move || host::run(&recv).unwrap());
    thread::sleep(Duration::from_millis(300));
    let mut buf = Vec::new();
    let mut send = |p: Packet, mangle: &dyn Fn(&mut Vec<u8>)| {
        wire::encode(&p, &mut buf);
        mangle(&mut buf);
        u.send_to(&buf, pr).unwrap();
    };
    let data = |seq, ts| Packet::new(0, PacketKind::Data, 1040, seq, ts);
    send(data(0, 1), &|b| b.truncate(20)); // truncated
    send(data(0, 1), &|b| b[2] = 7); // version
    send(data(0, 1), &|b| b[40] ^= 1); // checksum
    send(data(99, 1), &|_| ()); // beyond the flow's 5 packets
    send(data(0, u64::MAX / 2), &|_| ()); // a timestamp in the future
    send(Packet::new(7, PacketKind::Data, 1040, 0, 1), &|_| ()); // unknown flow
    send(Packet::new(0, PacketKind::Ack, 40, 0, 1), &|_| ()); // an ACK for a host that sends nothing
    thread::sleep(Duration::from_millis(300));
    std::fs::write(&stop, b"").unwrap();
    let r = r.join().unwrap();
    let _ = std::fs::remove_file(&stop);
    let c = &r.refused.counts;
    let get = |k: &str| c.get(k).copied().unwrap_or(0);
    assert_eq!(
        (
            get("truncated"),
            get("version"),
            get("checksum"),
            get("seq"),
            get("timestamp"),
            get("unknown_flow")
        ),
        (1, 1, 1, 1, 1, 2),
        "{c:?}"
    );
    assert_eq!(r.flows[0].status, "no-data");
    assert_eq!(r.flows[0].finish_ns, None);
}
