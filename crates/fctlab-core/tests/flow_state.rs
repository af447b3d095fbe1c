//! The per-flow state in bytes (`std::mem::size_of`, the numbers
//! `examples/flow_state.rs` prints): each row must stay within its budget,
//! so a flow in progress does not grow unnoticed (the engine keeps one per
//! flow in progress, 10^6 of them in the scaling runs), and the performance
//! page includes the table this test renders (`docs/snippets/flow-state.md`):
//! the test fails when the committed table is not this build's.
//! `FCTLAB_BLESS=1` writes it again. A change to a budget is deliberate.

use fctlab_core::engine::FLOW_SLOT_BYTES;
use fctlab_core::metrics::FlowRecord;
use fctlab_core::protocols::rcp::host::{RcpReceiver, RcpSender};
use fctlab_core::transport::cc::newreno::NewReno;
use fctlab_core::transport::sack::Scoreboard;
use fctlab_core::transport::tcp::{TcpReceiver, TcpSackReceiver, TcpSender};
use std::mem::size_of;

#[test]
fn the_per_flow_state_stays_within_its_budget_and_the_docs_state_it() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/snippets/flow-state.md");
    let tcp = size_of::<TcpSender>() + size_of::<NewReno>() + size_of::<TcpReceiver>();
    let rows = [
        ("engine slot (`FlowSlot`)", FLOW_SLOT_BYTES, 120),
        ("flow record (`FlowRecord`)", size_of::<FlowRecord>(), 152),
        (
            "TCP sender (`TcpSender`; the NewReno controller is zero-sized)",
            size_of::<TcpSender>() + size_of::<NewReno>(),
            // Linux's RTO estimator and F-RTO's state (one boxed word each)
            // and the count of timeouts and of those undone; the pacing
            // state (one boxed word, empty when the sender does not pace).
            312,
        ),
        // Linux's delayed ACKs: one boxed word.
        ("TCP receiver (`TcpReceiver`)", size_of::<TcpReceiver>(), 144),
        (
            "TCP SACK sender with its scoreboard",
            size_of::<TcpSender>() + size_of::<Scoreboard>(),
            // The TCP sender's pacing word.
            376,
        ),
        ("TCP SACK receiver", size_of::<TcpSackReceiver>(), 200),
        ("RCP sender (`RcpSender`)", size_of::<RcpSender>(), 296),
        ("RCP receiver (`RcpReceiver`)", size_of::<RcpReceiver>(), 80),
        (
            "a TCP NewReno flow in all (slot, record, endpoints)",
            FLOW_SLOT_BYTES + size_of::<FlowRecord>() + tcp,
            // The TCP sender's pacing word.
            728,
        ),
    ];
    let mut table = String::from("| per flow | bytes |\n| --- | --- |\n");
    for (name, bytes, budget) in rows {
        assert!(bytes <= budget, "{name}: {bytes} bytes, over its budget of {budget}");
        table.push_str(&format!("| {name} | {bytes} |\n"));
    }
    if std::env::var_os("FCTLAB_BLESS").is_some() {
        std::fs::write(path, &table).expect("write the table");
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert_eq!(
        committed, table,
        "docs/snippets/flow-state.md is not this build's per-flow state; \
         FCTLAB_BLESS=1 cargo test --release -p fctlab-core --test flow_state writes it"
    );
}
