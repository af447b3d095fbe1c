//! The sender's phase and its timer, one enum each.

use crate::sim::Time;

/// Where a connection is in its life. The loss-recovery algorithm
/// ([`super::recovery`]) keeps its own bookkeeping; the phase is what every
/// algorithm shares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The SYN is out (or the flow has not started): waiting for the SYN-ACK.
    Handshake,
    /// Established, no loss being repaired.
    Open,
    /// After a retransmission timeout, with `timeout_exit_growth =
    /// "beyond_recover"` (ns-3's `CA_LOSS`): the ACK that first covers
    /// `recover` grows the window only by what it acknowledges beyond it.
    Loss,
    /// Fast recovery, entered on duplicate ACKs (RFC 5681, RFC 6582, RFC 6675).
    Recovery(Recovering),
    /// All data is acknowledged; waiting for the receiver's FIN (`fin_exchange`).
    FinWait,
    /// The FIN is answered; waiting for the receiver's ACK behind it, to
    /// answer with a reset (`fin_rst`).
    RstWait,
    /// The flow is over.
    Done,
}

/// The state of a fast recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recovering {
    /// Whether a partial ACK has restarted the retransmission timer yet
    /// (RFC 6582 3.2 step 5: only the first one does).
    pub timer: PartialAckTimer,
    /// The phase recovery returns to: [`Phase::Loss`] when it began before
    /// the ACK that ends a timeout's recovery came (possible only where fast
    /// retransmit does not wait for `recover`: Reno, Tahoe).
    pub resumes: Resume,
}

/// See [`Recovering::timer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialAckTimer {
    /// No partial ACK has restarted the timer in this recovery.
    NotRestarted,
    /// One has.
    Restarted,
}

/// See [`Recovering::resumes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resume {
    Open,
    Loss,
}

impl Phase {
    /// Fast recovery, starting from this phase.
    pub fn recovery_from(self) -> Phase {
        Phase::Recovery(Recovering {
            timer: PartialAckTimer::NotRestarted,
            resumes: if self.in_loss() { Resume::Loss } else { Resume::Open },
        })
    }

    /// Whether the sender is in fast recovery.
    #[inline]
    pub fn in_recovery(self) -> bool {
        matches!(self, Phase::Recovery(_))
    }

    /// Whether a timeout's recovery (ns-3's `CA_LOSS`) is under way, in fast
    /// recovery or not.
    #[inline]
    pub fn in_loss(self) -> bool {
        matches!(
            self,
            Phase::Loss
                | Phase::Recovery(Recovering {
                    resumes: Resume::Loss,
                    ..
                })
        )
    }

    /// The phase with the timeout's recovery over.
    pub fn loss_over(self) -> Phase {
        match self {
            Phase::Loss => Phase::Open,
            Phase::Recovery(r) => Phase::Recovery(Recovering {
                resumes: Resume::Open,
                ..r
            }),
            p => p,
        }
    }

    /// The phase fast recovery ends in (this phase if not in fast recovery).
    pub fn recovery_over(self) -> Phase {
        match self {
            Phase::Recovery(Recovering {
                resumes: Resume::Loss, ..
            }) => Phase::Loss,
            Phase::Recovery(_) => Phase::Open,
            p => p,
        }
    }
}

/// The sender's one timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    Off,
    /// Resend the SYN (`syn_rto_ms`, or the RTO), backed off per retry.
    Syn(Time),
    /// The retransmission timeout (RFC 6298).
    Retransmit(Time),
    /// Stop waiting for the receiver's FIN or the ACK behind it: the flow is
    /// over.
    Close(Time),
    /// RACK's reordering timer (RFC 8985 6.2 step 5), standing in for the
    /// retransmission timer until it fires (`rack`).
    Reorder(Time),
    /// TLP's probe timeout (RFC 8985 7.2), standing in for the
    /// retransmission timer until it fires (`rack`).
    Probe(Time),
}

impl Timer {
    /// When it fires.
    #[inline]
    pub fn at(self) -> Option<Time> {
        match self {
            Timer::Off => None,
            Timer::Syn(t) | Timer::Retransmit(t) | Timer::Close(t) | Timer::Reorder(t) | Timer::Probe(t) => Some(t),
        }
    }
}

/// F-RTO's progress after a timeout (RFC 5682 section 2, `frto`), with what
/// to restore if the timeout proves spurious (held boxed, outside the
/// per-flow state, while F-RTO is under way).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frto {
    pub step: FrtoStep,
    pub undo: Undo,
}

/// See [`Frto`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrtoStep {
    /// Step 2: waiting for the first ACK after the timeout's retransmission.
    First,
    /// Step 3: new segments are out; waiting for the second ACK.
    Second,
}

/// The window and ssthresh before a timeout (Linux's `prior_cwnd` and
/// `prior_ssthresh`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Undo {
    pub cwnd: f64,
    pub ssthresh: f64,
}
