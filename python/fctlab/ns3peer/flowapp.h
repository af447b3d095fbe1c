// fctlab's benchmark workload for ns-3, compiled at run time by cppyy.
//
// One object drives every flow of the run, so that all per-flow and per-packet
// work stays in C++ (Python only builds the topology and hands over the flow
// list before Simulator::Run):
//
//  * flows are started in arrival order, each start scheduling the next, so the
//    event queue holds one pending arrival at a time;
//  * a flow is a TCP connection from sender host `pair` to receiver host `pair`
//    that sends `pkts * mss` bytes (BulkSend-like: the transmit buffer is
//    refilled from the send callback) and then closes;
//  * each receiver host has one listening socket (PacketSink-like) that counts
//    bytes read by the application; a flow completes when all its bytes have
//    been read, and the sink side closes its socket when the sender's FIN
//    arrives (ns-3's PacketSink never does, which leaves thousands of sockets in
//    the endpoint list, whose lookup is linear);
//  * ns-3 keeps a socket alive while it is open and drops its last reference as
//    the socket closes, inside the socket's own code; so each flow holds its
//    sockets until they reach CLOSED (State trace), and lets them go at the
//    next arrival;
//  * counters: packets starting transmission on the bottleneck in each
//    direction (PhyTxBegin), packets dropped by traffic control (with no queue
//    disc, a full device queue stops the device and the drop shows there), by
//    device queues themselves, and by a queue disc (RED on the bottleneck port:
//    its Drop trace, which covers early, forced and internal-queue drops).
#ifndef FCTLAB_NS3_FLOWAPP_H
#define FCTLAB_NS3_FLOWAPP_H

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace fctlab {

using namespace ns3;

class Workload
{
  public:
    Workload(uint32_t mssBytes, uint16_t port)
        : m_mss(mssBytes),
          m_port(port)
    {
    }

    /// Register host pair `i` (call in order 0, 1, ...): the sender node, the
    /// receiver node and the receiver's address. Installs the listening socket.
    void AddPair(Ptr<Node> sender, Ptr<Node> receiver, Ipv4Address senderAddr, Ipv4Address receiverAddr)
    {
        m_senders.push_back(sender);
        m_receiverAddrs.push_back(receiverAddr);
        m_senderIndex[senderAddr.Get()] = static_cast<uint32_t>(m_senders.size() - 1);
        Ptr<Socket> listener = Socket::CreateSocket(receiver, TcpSocketFactory::GetTypeId());
        listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port));
        listener->Listen();
        listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                    MakeCallback(&Workload::OnAccept, this));
        m_listeners.push_back(listener);
    }

    /// Add a flow; flows must be added in non-decreasing start time.
    void AddFlow(double startS, uint32_t pair, uint64_t pkts)
    {
        Flow f;
        f.start = startS;
        f.pair = pair;
        f.bytes = pkts * static_cast<uint64_t>(m_mss);
        m_flows.push_back(f);
    }

    /// Schedule the first arrival; the rest follow one by one.
    void Start()
    {
        if (!m_flows.empty())
        {
            Simulator::Schedule(Seconds(m_flows[0].start), &Workload::StartFlow, this, 0u);
        }
    }

    /// Count packets that start transmission on a device (PhyTxBegin); false if it cannot.
    bool CountTx(Ptr<NetDevice> dev, bool forward)
    {
        return dev->TraceConnectWithoutContext(
            "PhyTxBegin",
            MakeCallback(forward ? &Workload::OnFwdTx : &Workload::OnRevTx, this));
    }

    /// Count drops by a node's traffic-control layer (TcDrop: the device queue is
    /// full, so stopped, and there is no queue disc); false if it cannot.
    bool CountTcDrops(Ptr<Node> node, bool bottleneck)
    {
        Ptr<TrafficControlLayer> tc = node->GetObject<TrafficControlLayer>();
        return tc && tc->TraceConnectWithoutContext(
                         "TcDrop",
                         MakeCallback(bottleneck ? &Workload::OnBottleneckDrop : &Workload::OnOtherDrop, this));
    }

    /// Count drops by a device's own queue (should stay 0 when traffic control sees them first).
    bool CountQueueDrops(Ptr<Queue<Packet>> queue)
    {
        return queue->TraceConnectWithoutContext("Drop", MakeCallback(&Workload::OnQueueDrop, this));
    }

    /// Count drops by a queue disc as the bottleneck's (the RED queue disc on
    /// R0's bottleneck port); false if it cannot.
    bool CountQueueDiscDrops(Ptr<QueueDisc> qd)
    {
        return qd->TraceConnectWithoutContext("Drop", MakeCallback(&Workload::OnQueueDiscDrop, this));
    }

    uint64_t FlowsStarted() const { return m_started; }
    uint64_t FlowsCompleted() const { return m_completed; }
    uint64_t FlowsFailed() const { return m_failed; }
    /// Sockets (both ends) not yet CLOSED: the endpoints ns-3 searches linearly per packet.
    uint64_t OpenSockets() const { return m_open; }
    uint64_t BytesDelivered() const { return m_bytesDelivered; }
    uint64_t FwdPkts() const { return m_fwdPkts; }
    uint64_t FwdBytes() const { return m_fwdBytes; }
    uint64_t RevPkts() const { return m_revPkts; }
    uint64_t BottleneckDrops() const { return m_bnDrops; }
    uint64_t OtherDrops() const { return m_otherDrops; }
    uint64_t QueueDrops() const { return m_queueDrops; }
    /// Bottleneck drops of SYN segments (the TcDrop packet carries its IPv4
    /// header: removed before the TCP header is read).
    uint64_t SynDrops() const { return m_synDrops; }
    /// Sample the packets waiting in a device queue every `everyS` seconds
    /// from now until `untilS` (a histogram: QueueHistogram()[n] samples held n).
    void StartQueueSampling(Ptr<Queue<Packet>> q, double everyS, double untilS)
    {
        Simulator::ScheduleNow(&Workload::SampleQueue, this, q, Seconds(everyS), Seconds(untilS));
    }
    /// The same for a queue disc and the device queue below it (their packets added).
    void StartQueueDiscSampling(Ptr<QueueDisc> qd, Ptr<Queue<Packet>> q, double everyS, double untilS)
    {
        Simulator::ScheduleNow(&Workload::SampleQueueDisc, this, qd, q, Seconds(everyS), Seconds(untilS));
    }
    std::vector<uint64_t> QueueHistogram() const { return m_queueHist; }
    std::vector<uint32_t> ControlDropSizes() const { return m_ctlDropSizes; }

    /// Record a trace of flow `id` (sender side): every segment sent, ACK
    /// received, and change of cwnd, ssthresh, congestion state and RTO.
    void TraceFlow(int64_t id) { m_traceFlow = id; }

    /// The trace of the traced flow as (time s, what, value): what 0 = data
    /// segment sent (value: its sequence number in segments from 0), 1 = ACK
    /// received (cumulative ACK in segments), 2 = cwnd (segments), 3 = ssthresh
    /// (segments), 4 = congestion state (TcpSocketState::TcpCongState_t), 5 = RTO (s),
    /// 6 = SYN sent.
    std::vector<double> Trace() const { return m_trace; }

    /// Data segments each flow's sender transmitted (first transmissions and
    /// retransmissions, in flow order).
    std::vector<uint64_t> DataSegmentsSent() const
    {
        std::vector<uint64_t> out;
        out.reserve(m_flows.size());
        for (const Flow& f : m_flows)
        {
            out.push_back(f.segsSent);
        }
        return out;
    }

    /// Flow completion times (seconds) of the completed flows, in flow order.
    std::vector<double> Fcts() const
    {
        std::vector<double> out;
        out.reserve(m_completed);
        for (const Flow& f : m_flows)
        {
            if (f.finish >= 0)
            {
                out.push_back(f.finish - f.start);
            }
        }
        return out;
    }

    /// Every flow's completion time (seconds) in flow order; -1 where the flow did not complete.
    std::vector<double> AllFcts() const
    {
        std::vector<double> out;
        out.reserve(m_flows.size());
        for (const Flow& f : m_flows)
        {
            out.push_back(f.finish >= 0 ? f.finish - f.start : -1.0);
        }
        return out;
    }

    /// Sizes (packets) of the completed flows, in the same order as Fcts().
    std::vector<uint64_t> CompletedSizes() const
    {
        std::vector<uint64_t> out;
        out.reserve(m_completed);
        for (const Flow& f : m_flows)
        {
            if (f.finish >= 0)
            {
                out.push_back(f.bytes / m_mss);
            }
        }
        return out;
    }

  private:
    struct Flow
    {
        double start = 0;
        double finish = -1; // seconds; -1 until all bytes have been read
        uint32_t pair = 0;
        uint64_t bytes = 0;     // to send
        uint64_t queued = 0;    // handed to the sending socket
        uint64_t delivered = 0; // read by the receiving application
        uint64_t segsSent = 0;  // data segments the sender transmitted
        uint32_t isn = 0;       // the sender's first data sequence number
        Ptr<Socket> snd;        // held until the socket reaches CLOSED
        Ptr<Socket> rcv;
    };

    static uint64_t Key(uint32_t pair, uint16_t port)
    {
        return (static_cast<uint64_t>(pair) << 16) | port;
    }

    // Socket callbacks carry the flow id as a bound argument (no per-packet map look-ups).
    static void SConnected(Workload* w, uint32_t id, Ptr<Socket>) { w->Fill(id); }
    static void SConnectFailed(Workload* w, uint32_t id, Ptr<Socket>) { ++w->m_failed; (void)id; }
    static void SSendSpace(Workload* w, uint32_t id, Ptr<Socket>, uint32_t) { w->Fill(id); }
    static void SRecv(Workload* w, uint32_t id, Ptr<Socket> s) { w->Drain(id, s); }
    static void SPeerClose(Workload* w, uint32_t id, Ptr<Socket> s) { w->PeerClosed(id, s); }
    static void SRecvError(Workload*, uint32_t, Ptr<Socket>) {}
    static void SState(Workload* w, uint32_t id, bool sender, TcpSocket::TcpStates_t, TcpSocket::TcpStates_t now)
    {
        if (now == TcpSocket::CLOSED)
        {
            w->Release(id, sender);
        }
    }

    static void STx(Workload* w, uint32_t id, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        Flow& f = w->m_flows[id];
        uint8_t fl = h.GetFlags();
        if (fl & TcpHeader::SYN)
        {
            f.isn = h.GetSequenceNumber().GetValue() + 1;
            w->Record(id, 6, 0);
        }
        else if (p->GetSize() > 0)
        {
            ++f.segsSent;
            w->Record(id, 0, static_cast<double>((h.GetSequenceNumber().GetValue() - f.isn) / w->m_mss));
        }
    }
    static void SRxAck(Workload* w, uint32_t id, Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        if (h.GetFlags() & TcpHeader::ACK)
        {
            w->Record(id, 1, static_cast<double>(h.GetAckNumber().GetValue() - w->m_flows[id].isn) / w->m_mss);
        }
    }
    static void SCwnd(Workload* w, uint32_t id, uint32_t, uint32_t now) { w->Record(id, 2, double(now) / w->m_mss); }
    static void SSsth(Workload* w, uint32_t id, uint32_t, uint32_t now) { w->Record(id, 3, double(now) / w->m_mss); }
    static void SCong(Workload* w, uint32_t id, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
    {
        w->Record(id, 4, double(now));
    }
    static void SRto(Workload* w, uint32_t id, Time, Time now) { w->Record(id, 5, now.GetSeconds()); }

    void Record(uint32_t id, int what, double v)
    {
        if (static_cast<int64_t>(id) == m_traceFlow)
        {
            m_trace.push_back(Simulator::Now().GetSeconds());
            m_trace.push_back(what);
            m_trace.push_back(v);
        }
    }

    void StartFlow(uint32_t id)
    {
        m_released.clear(); // sockets that reached CLOSED since the last arrival
        ++m_started;
        Flow& f = m_flows[id];
        Ptr<Socket> s = Socket::CreateSocket(m_senders[f.pair], TcpSocketFactory::GetTypeId());
        s->Bind();
        Address local;
        s->GetSockName(local);
        m_byPeer[Key(f.pair, InetSocketAddress::ConvertFrom(local).GetPort())] = id;
        f.snd = s;
        ++m_open;
        s->TraceConnectWithoutContext("State", MakeBoundCallback(&Workload::SState, this, id, true));
        s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&Workload::STx, this, id));
        if (static_cast<int64_t>(id) == m_traceFlow)
        {
            s->TraceConnectWithoutContext("Rx", MakeBoundCallback(&Workload::SRxAck, this, id));
            s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&Workload::SCwnd, this, id));
            s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&Workload::SSsth, this, id));
            s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&Workload::SCong, this, id));
            s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&Workload::SRto, this, id));
        }
        s->SetConnectCallback(MakeBoundCallback(&Workload::SConnected, this, id),
                              MakeBoundCallback(&Workload::SConnectFailed, this, id));
        s->SetSendCallback(MakeBoundCallback(&Workload::SSendSpace, this, id));
        s->Connect(InetSocketAddress(m_receiverAddrs[f.pair], m_port));
        if (id + 1 < m_flows.size())
        {
            Simulator::Schedule(Seconds(m_flows[id + 1].start) - Simulator::Now(),
                                &Workload::StartFlow, this, id + 1);
        }
    }

    /// Queue as much of the flow as the transmit buffer takes; close once all is queued.
    void Fill(uint32_t id)
    {
        Flow& f = m_flows[id];
        Ptr<Socket> s = f.snd;
        if (!s || f.queued >= f.bytes)
        {
            return;
        }
        while (f.queued < f.bytes)
        {
            uint32_t room = s->GetTxAvailable();
            if (room == 0)
            {
                return; // the send callback calls again when ACKs free the buffer
            }
            uint32_t chunk = static_cast<uint32_t>(std::min<uint64_t>(room, f.bytes - f.queued));
            int sent = s->Send(Create<Packet>(chunk));
            if (sent <= 0)
            {
                return;
            }
            f.queued += static_cast<uint64_t>(sent);
        }
        // Everything is queued: close (ns-3 sends the FIN after the data).
        s->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
        s->Close();
    }

    void OnAccept(Ptr<Socket> s, const Address& from)
    {
        InetSocketAddress peer = InetSocketAddress::ConvertFrom(from);
        auto pi = m_senderIndex.find(peer.GetIpv4().Get());
        if (pi == m_senderIndex.end())
        {
            return;
        }
        auto fi = m_byPeer.find(Key(pi->second, peer.GetPort()));
        if (fi == m_byPeer.end())
        {
            return;
        }
        uint32_t id = fi->second;
        m_byPeer.erase(fi);
        m_flows[id].rcv = s;
        ++m_open;
        s->TraceConnectWithoutContext("State", MakeBoundCallback(&Workload::SState, this, id, false));
        s->SetRecvCallback(MakeBoundCallback(&Workload::SRecv, this, id));
        s->SetCloseCallbacks(MakeBoundCallback(&Workload::SPeerClose, this, id),
                             MakeBoundCallback(&Workload::SRecvError, this, id));
    }

    /// Read everything the socket holds; the flow completes when all its bytes are read.
    void Drain(uint32_t id, Ptr<Socket> s)
    {
        Flow& f = m_flows[id];
        Ptr<Packet> p;
        while ((p = s->Recv()) && p->GetSize() > 0)
        {
            uint32_t n = p->GetSize();
            m_bytesDelivered += n;
            f.delivered += n;
        }
        if (f.finish < 0 && f.delivered >= f.bytes)
        {
            f.finish = Simulator::Now().GetSeconds();
            ++m_completed;
        }
    }

    /// The sender's FIN arrived in order: read what is left and close the sink side.
    void PeerClosed(uint32_t id, Ptr<Socket> s)
    {
        Drain(id, s);
        s->Close();
    }

    /// The socket reached CLOSED: keep our reference until the next arrival, so it
    /// is not freed inside its own call (ns-3 drops its reference as it closes).
    void Release(uint32_t id, bool sender)
    {
        Flow& f = m_flows[id];
        Ptr<Socket>& s = sender ? f.snd : f.rcv;
        if (s)
        {
            m_released.push_back(s);
            s = nullptr;
            --m_open;
        }
    }

    void OnFwdTx(Ptr<const Packet> p)
    {
        ++m_fwdPkts;
        m_fwdBytes += p->GetSize();
    }

    void OnRevTx(Ptr<const Packet>) { ++m_revPkts; }

    void OnBottleneckDrop(Ptr<const Packet> p)
    {
        ++m_bnDrops;
        // Control segments (SYN, pure ACK, FIN) are the drops without payload:
        // at most 60 bytes of TCP options and IPv4 header.
        if (p->GetSize() <= 80)
        {
            m_ctlDropSizes.push_back(p->GetSize());
            TcpHeader h;
            Ptr<Packet> c = p->Copy();
            Ipv4Header ip;
            c->RemoveHeader(ip);
            c->PeekHeader(h);
            if (h.GetFlags() & TcpHeader::SYN)
            {
                ++m_synDrops;
            }
        }
    }

    /// A queue disc's drop: the item holds the packet without its IPv4 header
    /// (added when the device sends it); GetSize() counts the header.
    void OnQueueDiscDrop(Ptr<const QueueDiscItem> item)
    {
        ++m_bnDrops;
        if (item->GetSize() <= 80)
        {
            m_ctlDropSizes.push_back(item->GetSize());
            TcpHeader h;
            item->GetPacket()->PeekHeader(h);
            if (h.GetFlags() & TcpHeader::SYN)
            {
                ++m_synDrops;
            }
        }
    }

    void SampleQueue(Ptr<Queue<Packet>> q, Time every, Time until)
    {
        uint32_t n = q->GetNPackets();
        if (m_queueHist.size() <= n)
        {
            m_queueHist.resize(n + 1, 0);
        }
        ++m_queueHist[n];
        if (Simulator::Now() + every <= until)
        {
            Simulator::Schedule(every, &Workload::SampleQueue, this, q, every, until);
        }
    }

    void SampleQueueDisc(Ptr<QueueDisc> qd, Ptr<Queue<Packet>> q, Time every, Time until)
    {
        uint32_t n = qd->GetNPackets() + q->GetNPackets();
        if (m_queueHist.size() <= n)
        {
            m_queueHist.resize(n + 1, 0);
        }
        ++m_queueHist[n];
        if (Simulator::Now() + every <= until)
        {
            Simulator::Schedule(every, &Workload::SampleQueueDisc, this, qd, q, every, until);
        }
    }

    void OnOtherDrop(Ptr<const Packet>) { ++m_otherDrops; }

    void OnQueueDrop(Ptr<const Packet>) { ++m_queueDrops; }

    uint32_t m_mss;
    uint16_t m_port;
    std::vector<Ptr<Node>> m_senders;
    std::vector<Ipv4Address> m_receiverAddrs;
    std::vector<Ptr<Socket>> m_listeners;
    std::unordered_map<uint32_t, uint32_t> m_senderIndex; // sender IPv4 -> pair
    std::vector<Flow> m_flows;
    std::unordered_map<uint64_t, uint32_t> m_byPeer;   // (pair, sender port) -> flow, until accepted
    std::vector<Ptr<Socket>> m_released;
    uint64_t m_started = 0;
    uint64_t m_completed = 0;
    uint64_t m_failed = 0;
    uint64_t m_open = 0;
    uint64_t m_bytesDelivered = 0;
    uint64_t m_fwdPkts = 0;
    uint64_t m_fwdBytes = 0;
    uint64_t m_revPkts = 0;
    uint64_t m_bnDrops = 0;
    uint64_t m_otherDrops = 0;
    uint64_t m_queueDrops = 0;
    uint64_t m_synDrops = 0;
    std::vector<uint64_t> m_queueHist;
    std::vector<uint32_t> m_ctlDropSizes;
    int64_t m_traceFlow = -1;
    std::vector<double> m_trace;
};

} // namespace fctlab

#endif
