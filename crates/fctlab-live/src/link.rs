//! A user-space link emulator: bridges pairs of interfaces with AF_PACKET
//! sockets and gives each direction a delay before its queue (per source
//! host), a queue discipline with a serialisation rate, and a delay after it
//! (per destination host). The bottleneck's forward queue is the scenario's
//! discipline (the core's own code: DropTail, RED, FQ, RCP, XCP); it sees
//! every frame as a [`Packet`] of its IP length, so kernel TCP and fctlab's
//! datagrams meet the same queue. Router-assisted disciplines rewrite the
//! header words of fctlab datagrams at dequeue (the datagram's CRC is
//! recomputed and its UDP checksum, optional in IPv4, set to 0).
//!
//! The kernel this runs on may lack netem; this is how live runs get their
//! delays, and the queue code they are judged by is the simulator's.

use crate::wire;
use crate::{stop_requested, Clock, Refused};
use fctlab_core::net::packet::flags;
use fctlab_core::net::queue::{DropTail, PortParams, Queue};
use fctlab_core::net::{Packet, PacketKind};
use fctlab_core::scenario::Plan;
use fctlab_core::sim::tx_time_ns;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::net::Ipv4Addr;

/// One direction of a link.
#[derive(Clone, Debug, Deserialize)]
pub struct DirCfg {
    /// Serialisation rate (None: no queue, a pure delay line).
    pub rate_bps: Option<f64>,
    /// Whether the queue is the scenario's discipline (else unlimited DropTail).
    #[serde(default)]
    pub scenario_queue: bool,
    /// Delay before the queue, by source address (ns).
    #[serde(default)]
    pub pre_ns: HashMap<Ipv4Addr, u64>,
    /// Delay after the queue, by destination address (ns), added to `post_base_ns`.
    #[serde(default)]
    pub post_ns: HashMap<Ipv4Addr, u64>,
    /// Delay after the queue, by source address (ns), added too.
    #[serde(default)]
    pub post_src_ns: HashMap<Ipv4Addr, u64>,
    #[serde(default)]
    pub post_base_ns: u64,
}

impl DirCfg {
    fn post(&self, f: &Frame) -> u64 {
        self.post_base_ns
            + self.post_ns.get(&f.dst).copied().unwrap_or(0)
            + self.post_src_ns.get(&f.src).copied().unwrap_or(0)
    }
}

/// Two interfaces bridged: frames from `a` go out of `b` through `fwd`, frames
/// from `b` go out of `a` through `rev`.
#[derive(Clone, Debug, Deserialize)]
pub struct PairCfg {
    pub a: String,
    pub b: String,
    pub fwd: DirCfg,
    pub rev: DirCfg,
}

#[derive(Clone, Debug, Deserialize)]
pub struct EmuCfg {
    pub scenario: serde_json::Value,
    pub epoch_ns: u64,
    pub pairs: Vec<PairCfg>,
    pub stop_file: Option<String>,
    pub deadline_ns: u64,
    pub sample_ns: u64,
    /// UDP port of fctlab's datagrams (their header is checked and, for
    /// router-assisted queues, rewritten).
    pub fctlab_port: u16,
    /// TCP flows' source ports are this plus the flow id.
    pub tcp_port_base: u16,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct EmuOut {
    pub refused: Refused,
    pub frames: u64,
    pub dropped: u64,
    pub drops: HashMap<u32, u64>,
    pub t_ns: Vec<u64>,
    pub queue_pkts: Vec<u64>,
    pub utilization: Vec<f64>,
    /// Microseconds a frame left after its time (max and mean): the emulator's timing.
    pub max_late_us: f64,
    pub mean_late_us: f64,
    pub rate_bps: f64,
    pub limit_pkts: usize,
    pub send_failures: u64,
}

struct Raw {
    fd: i32,
}

impl Raw {
    fn open(ifname: &str) -> Result<Raw, String> {
        let proto = (libc::ETH_P_ALL as u16).to_be();
        // SAFETY: plain socket calls on values we own; errors are checked.
        unsafe {
            let fd = libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_NONBLOCK, proto as i32);
            if fd < 0 {
                return Err(format!("AF_PACKET socket: {}", std::io::Error::last_os_error()));
            }
            let name = std::ffi::CString::new(ifname).map_err(|_| "bad interface name".to_string())?;
            let idx = libc::if_nametoindex(name.as_ptr());
            if idx == 0 {
                return Err(format!("no interface {ifname}"));
            }
            let mut sll: libc::sockaddr_ll = std::mem::zeroed();
            sll.sll_family = libc::AF_PACKET as u16;
            sll.sll_protocol = proto;
            sll.sll_ifindex = idx as i32;
            if libc::bind(
                fd,
                &sll as *const _ as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_ll>() as u32,
            ) != 0
            {
                return Err(format!("bind {ifname}: {}", std::io::Error::last_os_error()));
            }
            let one: i32 = 1;
            libc::setsockopt(
                fd,
                libc::SOL_PACKET,
                23, /* PACKET_IGNORE_OUTGOING */
                &one as *const i32 as *const libc::c_void,
                4,
            );
            let big: i32 = 16 << 20;
            for opt in [libc::SO_RCVBUFFORCE, libc::SO_SNDBUFFORCE] {
                libc::setsockopt(fd, libc::SOL_SOCKET, opt, &big as *const i32 as *const libc::c_void, 4);
            }
            Ok(Raw { fd })
        }
    }
    fn recv(&self, buf: &mut [u8]) -> Option<usize> {
        // SAFETY: buf is valid for its length.
        let n = unsafe {
            libc::recv(
                self.fd,
                buf.as_mut_ptr() as *mut libc::c_void,
                buf.len(),
                libc::MSG_DONTWAIT,
            )
        };
        (n > 0).then_some(n as usize)
    }
    fn send(&self, frame: &[u8]) -> bool {
        // SAFETY: frame is valid for its length.
        unsafe {
            libc::send(
                self.fd,
                frame.as_ptr() as *const libc::c_void,
                frame.len(),
                libc::MSG_DONTWAIT,
            ) == frame.len() as isize
        }
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        // SAFETY: we own the descriptor.
        unsafe { libc::close(self.fd) };
    }
}

/// What the emulator reads from a frame.
struct Frame {
    pkt: Packet,
    bytes: Vec<u8>,
    src: Ipv4Addr,
    dst: Ipv4Addr,
    /// Offset of fctlab's header in the frame, for fctlab datagrams.
    wire_at: Option<usize>,
}

const ETH: usize = 14;

struct Dir {
    cfg: DirCfg,
    out: usize,
    queue: Box<dyn Queue>,
    /// (time, order, slot): frames waiting out the delay before the queue.
    pre: BinaryHeap<Reverse<(u64, u64, u32)>>,
    /// ... and after it.
    post: BinaryHeap<Reverse<(u64, u64, u32)>>,
    serving: Option<(Packet, u64)>,
    busy_ns: u64,
    busy_at_sample: u64,
}

struct Slab {
    frames: Vec<Option<Frame>>,
    free: Vec<u32>,
}

impl Slab {
    fn put(&mut self, f: Frame) -> u32 {
        if let Some(i) = self.free.pop() {
            self.frames[i as usize] = Some(f);
            i
        } else {
            self.frames.push(Some(f));
            (self.frames.len() - 1) as u32
        }
    }
    fn take(&mut self, i: u32) -> Frame {
        self.free.push(i);
        self.frames[i as usize].take().expect("a frame in the slab")
    }
    fn get_mut(&mut self, i: u32) -> &mut Frame {
        self.frames[i as usize].as_mut().expect("a frame in the slab")
    }
}

/// The frame as a packet for the queue (`path` holds its slot), or why it is refused.
fn classify(b: &[u8], cfg: &EmuCfg, fwd: bool) -> Result<Option<Frame>, &'static str> {
    if b.len() < ETH + 20 || b[12..14] != [0x08, 0x00] {
        return Ok(None); // not IPv4 (ARP): passed on at once
    }
    let ihl = ((b[ETH] & 0x0f) as usize) * 4;
    let total = u16::from_be_bytes([b[ETH + 2], b[ETH + 3]]) as usize;
    if ihl < 20 || b.len() < ETH + ihl + 8 || total < ihl {
        return Err("ip");
    }
    let proto = b[ETH + 9];
    let src = Ipv4Addr::new(b[ETH + 12], b[ETH + 13], b[ETH + 14], b[ETH + 15]);
    let dst = Ipv4Addr::new(b[ETH + 16], b[ETH + 17], b[ETH + 18], b[ETH + 19]);
    let l4 = ETH + ihl;
    let sport = u16::from_be_bytes([b[l4], b[l4 + 1]]);
    let dport = u16::from_be_bytes([b[l4 + 2], b[l4 + 3]]);
    let mut wire_at = None;
    let pkt = if proto == 17 && (sport == cfg.fctlab_port || dport == cfg.fctlab_port) {
        let at = l4 + 8;
        let p = wire::decode(&b[at..]).map_err(|e| e.name())?;
        wire_at = Some(at);
        let mut q = p;
        q.size_bytes = total as u32;
        q
    } else {
        let flow = if proto == 6 {
            let port = if fwd { sport } else { dport };
            port.saturating_sub(cfg.tcp_port_base) as u32
        } else {
            u32::MAX
        };
        let tcp_payload = if proto == 6 && b.len() >= l4 + 13 {
            total.saturating_sub(ihl + ((b[l4 + 12] >> 4) as usize) * 4)
        } else {
            0
        };
        let kind = if tcp_payload > 0 || (proto != 6 && fwd) {
            PacketKind::Data
        } else {
            PacketKind::Ack
        };
        let mut p = Packet::new(flow, kind, total as u32, 0, 0);
        if ip_ecn(b) != 0 {
            p.flags |= flags::ECT; // ECT(0), ECT(1) or CE: the queue may mark it
        }
        p
    };
    Ok(Some(Frame {
        pkt,
        bytes: b.to_vec(),
        src,
        dst,
        wire_at,
    }))
}

/// The ECN field of a frame's IPv4 header (RFC 3168 5: 0 Not-ECT, 1 ECT(1),
/// 2 ECT(0), 3 CE).
fn ip_ecn(b: &[u8]) -> u8 {
    b[ETH + 1] & 0x03
}

/// Mark an ECN-capable IPv4 frame CE (RFC 3168 5) and set its header
/// checksum again (RFC 1624's incremental update, eqn. 3, for the one word
/// that changed: TOS sits in the first word with the version and IHL).
fn mark_ce(b: &mut [u8]) {
    if ip_ecn(b) == 0 || ip_ecn(b) == 3 {
        return;
    }
    let old = u16::from_be_bytes([b[ETH], b[ETH + 1]]);
    b[ETH + 1] |= 0x03;
    let new = u16::from_be_bytes([b[ETH], b[ETH + 1]]);
    let hc = u16::from_be_bytes([b[ETH + 10], b[ETH + 11]]);
    // HC' = ~(~HC + ~m + m'), in ones' complement arithmetic.
    let mut sum = u32::from(!hc) + u32::from(!old) + u32::from(new);
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    b[ETH + 10..ETH + 12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
}

fn rewrite(f: &mut Frame, p: &Packet) {
    if f.wire_at.is_none() && p.flags & flags::CE != 0 {
        mark_ce(&mut f.bytes); // a kernel TCP frame the queue marked
    }
    if let Some(at) = f.wire_at {
        let mut w = wire::decode(&f.bytes[at..]).expect("checked on arrival");
        if w.hdr.words().map(f64::to_bits) != p.hdr.words().map(f64::to_bits) || w.flags != p.flags {
            w.hdr = p.hdr;
            w.flags = p.flags;
            let mut buf = Vec::with_capacity(wire::HEADER_LEN);
            wire::encode(&w, &mut buf);
            f.bytes[at..at + wire::HEADER_LEN].copy_from_slice(&buf[..wire::HEADER_LEN]);
            f.bytes[at - 2] = 0; // UDP checksum: none
            f.bytes[at - 1] = 0;
        }
    }
}

/// What every direction shares: the sockets, the frames waiting (in the
/// slab; heaps and queues hold their slots), the outcome so far.
struct Shared {
    socks: Vec<Raw>,
    slab: Slab,
    out: EmuOut,
    /// Arrival order in the delay heaps (ties at equal times).
    order: u64,
    late_sum: f64,
    late_n: u64,
}

impl Shared {
    fn next_order(&mut self) -> u64 {
        self.order += 1;
        self.order
    }

    /// Take the frames waiting on every socket: socket 2k is interface a of
    /// pair k (into direction 2k, fwd), socket 2k+1 is b (into 2k+1, rev).
    fn receive(&mut self, dirs: &mut [Dir], cfg: &EmuCfg, buf: &mut [u8], now: u64) {
        for (si, d) in dirs.iter_mut().enumerate() {
            while let Some(n) = self.socks[si].recv(buf) {
                let fwd = si % 2 == 0;
                match classify(&buf[..n], cfg, fwd) {
                    Err(why) => self.out.refused.add(why),
                    Ok(None) => {
                        if !self.socks[d.out].send(&buf[..n]) {
                            self.out.send_failures += 1;
                        }
                    }
                    Ok(Some(f)) => {
                        let pre = d.cfg.pre_ns.get(&f.src).copied().unwrap_or(0);
                        // The frame waits in the slab; heaps and queue hold its slot.
                        let slot = self.slab.put(f);
                        self.slab.get_mut(slot).pkt.path = slot;
                        let order = self.next_order();
                        d.pre.push(Reverse((now + pre, order, slot)));
                    }
                }
            }
        }
    }
}

/// The directions of every pair, each with its queue, and their sockets.
fn open_pairs(cfg: &EmuCfg, plan: &Plan) -> Result<(Vec<Raw>, Vec<Dir>), String> {
    let link = &plan.topology.links[plan.topology.bottleneck as usize];
    let mut socks = Vec::new();
    let mut dirs = Vec::new();
    for (k, p) in cfg.pairs.iter().enumerate() {
        socks.push(Raw::open(&p.a)?);
        socks.push(Raw::open(&p.b)?);
        for (d, dc) in [(0, &p.fwd), (1, &p.rev)] {
            let queue: Box<dyn Queue> = if dc.scenario_queue {
                let rate = dc.rate_bps.unwrap_or(link.rate_bps);
                (plan.queue_builder)(PortParams {
                    limit_pkts: plan.buffer_pkts,
                    rate_bps: rate,
                    delay_ns: link.delay_ns,
                    seed: plan.seed,
                    stream: PortParams::stream_of(&link.name),
                })
            } else {
                Box::new(DropTail::new(usize::MAX))
            };
            // Direction 0 (fwd) goes out of b (socket 2k+1), 1 (rev) out of a (2k).
            dirs.push(Dir {
                cfg: dc.clone(),
                out: 2 * k + 1 - d,
                queue,
                pre: BinaryHeap::new(),
                post: BinaryHeap::new(),
                serving: None,
                busy_ns: 0,
                busy_at_sample: 0,
            });
        }
    }
    Ok((socks, dirs))
}

impl Dir {
    /// Move the frames due by `now` through this direction; the time of its
    /// next event.
    fn step(&mut self, sh: &mut Shared, now: u64) -> u64 {
        let mut wake = u64::MAX;
        self.admit(sh, now);
        if let Some(rate) = self.cfg.rate_bps {
            if let Some(done) = self.serve(sh, rate, now) {
                wake = wake.min(done);
            }
        }
        self.emit(sh, now);
        if let Some(&Reverse((t, _, _))) = self.pre.peek() {
            wake = wake.min(t);
        }
        if let Some(&Reverse((t, _, _))) = self.post.peek() {
            wake = wake.min(t);
        }
        wake
    }

    /// Delay before the queue over: into the queue (or straight on for a
    /// delay line).
    fn admit(&mut self, sh: &mut Shared, now: u64) {
        while let Some(&Reverse((t, _, slot))) = self.pre.peek() {
            if t > now {
                break;
            }
            self.pre.pop();
            let p = sh.slab.get_mut(slot).pkt;
            if self.cfg.rate_bps.is_none() {
                let post = self.cfg.post(sh.slab.get_mut(slot));
                let order = sh.next_order();
                self.post.push(Reverse((t + post, order, slot)));
                continue;
            }
            if let Some(dropped) = self.queue.enqueue(t, p) {
                sh.out.dropped += 1;
                if dropped.flow != u32::MAX {
                    *sh.out.drops.entry(dropped.flow).or_insert(0) += 1;
                }
                sh.slab.take(dropped.path);
            }
        }
    }

    /// Serialisation at `rate`, back to back (a late wake-up catches up);
    /// when the frame on the line is done.
    fn serve(&mut self, sh: &mut Shared, rate: f64, now: u64) -> Option<u64> {
        loop {
            match self.serving {
                Some((p, done)) if done <= now => {
                    let f = sh.slab.get_mut(p.path);
                    rewrite(f, &p);
                    let post = self.cfg.post(f);
                    let order = sh.next_order();
                    self.post.push(Reverse((done + post, order, p.path)));
                    self.serving = None;
                    if let Some(n) = self.queue.dequeue(done) {
                        let tx = tx_time_ns(n.size_bytes as u64, rate);
                        self.busy_ns += tx;
                        self.serving = Some((n, done + tx));
                    }
                }
                Some((_, done)) => return Some(done),
                None => match self.queue.dequeue(now) {
                    Some(n) => {
                        let tx = tx_time_ns(n.size_bytes as u64, rate);
                        self.busy_ns += tx;
                        self.serving = Some((n, now + tx));
                    }
                    None => return None,
                },
            }
        }
    }

    /// Delay after the queue over: out of the other interface.
    fn emit(&mut self, sh: &mut Shared, now: u64) {
        while let Some(&Reverse((t, _, slot))) = self.post.peek() {
            if t > now {
                break;
            }
            self.post.pop();
            let f = sh.slab.take(slot);
            let late = (now - t) as f64 / 1e3;
            sh.out.max_late_us = sh.out.max_late_us.max(late);
            sh.late_sum += late;
            sh.late_n += 1;
            sh.out.frames += 1;
            if !sh.socks[self.out].send(&f.bytes) {
                sh.out.send_failures += 1;
            }
        }
    }
}

/// Sleep until `wake` on the emulator's clock, or until a frame arrives.
fn wait(pfds: &mut [libc::pollfd], clock: &Clock, wake: u64) {
    let now = clock.now();
    if wake > now {
        let dt = wake - now;
        let ts = libc::timespec {
            tv_sec: (dt / 1_000_000_000) as libc::time_t,
            tv_nsec: (dt % 1_000_000_000) as libc::c_long,
        };
        // SAFETY: valid pollfds and timespec.
        unsafe { libc::ppoll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, &ts, std::ptr::null()) };
    }
}

pub fn run(cfg: &EmuCfg) -> Result<EmuOut, String> {
    let plan = fctlab_core::scenario::from_json(&cfg.scenario.to_string()).map_err(|e| e.to_string())?;
    let (socks, mut dirs) = open_pairs(cfg, &plan)?;
    let mut sh = Shared {
        socks,
        slab: Slab {
            frames: Vec::new(),
            free: Vec::new(),
        },
        out: EmuOut {
            limit_pkts: plan.buffer_pkts,
            rate_bps: plan.topology.links[plan.topology.bottleneck as usize].rate_bps,
            ..Default::default()
        },
        order: 0,
        late_sum: 0.0,
        late_n: 0,
    };
    crate::tune_process(60);
    let sampled = dirs.iter().position(|d| d.cfg.scenario_queue);
    // The emulator's own time axis starts now, before the run's epoch, so that
    // frames sent before the epoch (probes, ARP) get their delays too; the
    // samples are reported on the run's axis.
    let origin = crate::mono_ns().min(cfg.epoch_ns);
    let clock = Clock { epoch_ns: origin };
    let lead = cfg.epoch_ns - origin;
    let mut buf = vec![0u8; 65536];
    let mut next_sample = lead + cfg.sample_ns;
    let mut last_stop_check = 0u64;
    let mut pfds: Vec<libc::pollfd> = sh
        .socks
        .iter()
        .map(|s| libc::pollfd {
            fd: s.fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    loop {
        sh.receive(&mut dirs, cfg, &mut buf, clock.now());
        let now = clock.now();
        let mut wake = now + 20_000_000;
        for d in dirs.iter_mut() {
            wake = wake.min(d.step(&mut sh, now));
        }
        while now >= next_sample {
            if let Some(k) = sampled {
                let d = &mut dirs[k];
                sh.out.t_ns.push(next_sample - lead);
                sh.out.queue_pkts.push(d.queue.len_pkts() as u64);
                sh.out
                    .utilization
                    .push(((d.busy_ns - d.busy_at_sample) as f64 / cfg.sample_ns as f64).min(1.0));
                d.busy_at_sample = d.busy_ns;
            }
            next_sample += cfg.sample_ns;
        }
        wake = wake.min(next_sample);
        if now.saturating_sub(last_stop_check) >= 20_000_000 {
            last_stop_check = now;
            if stop_requested(&cfg.stop_file) || now >= lead + cfg.deadline_ns {
                break;
            }
        }
        wait(&mut pfds, &clock, wake);
    }
    let mut out = sh.out;
    out.mean_late_us = if sh.late_n > 0 {
        sh.late_sum / sh.late_n as f64
    } else {
        0.0
    };
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 1071: the ones' complement of the ones' complement sum of the
    /// header's 16-bit words; 0 over a header whose checksum is right.
    fn rfc1071(h: &[u8]) -> u16 {
        let mut sum: u32 = h.chunks(2).map(|w| u32::from(u16::from_be_bytes([w[0], w[1]]))).sum();
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        !(sum as u16)
    }

    /// An Ethernet frame with a 20-byte IPv4 header (TOS `tos`, checksum set)
    /// and 20 zero bytes of TCP.
    fn frame(tos: u8) -> Vec<u8> {
        let mut b = vec![0u8; ETH + 40];
        b[12] = 0x08;
        b[ETH] = 0x45;
        b[ETH + 1] = tos;
        b[ETH + 2..ETH + 4].copy_from_slice(&40u16.to_be_bytes());
        b[ETH + 8] = 64;
        b[ETH + 9] = 6;
        b[ETH + 12..ETH + 16].copy_from_slice(&[10, 0, 0, 1]);
        b[ETH + 16..ETH + 20].copy_from_slice(&[10, 1, 0, 1]);
        let c = rfc1071(&b[ETH..ETH + 20]);
        b[ETH + 10..ETH + 12].copy_from_slice(&c.to_be_bytes());
        b
    }

    #[test]
    fn marking_an_ect_frame_sets_ce_and_keeps_the_checksum_right() {
        for tos in [0x01u8, 0x02, 0xb9, 0xba] {
            let mut b = frame(tos);
            mark_ce(&mut b);
            assert_eq!(b[ETH + 1], tos | 0x03, "tos {tos:#x}: DSCP kept, ECN = CE");
            assert_eq!(rfc1071(&b[ETH..ETH + 20]), 0, "tos {tos:#x}: header checksum");
        }
        for tos in [0x00u8, 0xb8, 0x03] {
            let mut b = frame(tos);
            let before = b.clone();
            mark_ce(&mut b);
            assert_eq!(b, before, "tos {tos:#x}: Not-ECT and CE frames are left alone");
        }
    }

    #[test]
    fn kernel_frames_carry_their_ect_to_the_queue() {
        let cfg: EmuCfg = serde_json::from_value(serde_json::json!({
            "scenario": {}, "epoch_ns": 0, "pairs": [], "stop_file": null, "deadline_ns": 0,
            "sample_ns": 0, "fctlab_port": 7000, "tcp_port_base": 6000
        }))
        .unwrap_or_else(|e| panic!("EmuCfg: {e}"));
        let ect = classify(&frame(0x02), &cfg, true).unwrap().unwrap();
        assert_ne!(ect.pkt.flags & flags::ECT, 0);
        let plain = classify(&frame(0x00), &cfg, true).unwrap().unwrap();
        assert_eq!(plain.pkt.flags & flags::ECT, 0);
    }
}
