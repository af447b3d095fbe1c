//! A non-blocking UDP socket with large buffers and a nanosecond wait.

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;

pub struct Sock {
    pub udp: UdpSocket,
}

fn setopt(fd: i32, opt: i32, v: i32) {
    // SAFETY: setsockopt with an int option; failure only leaves the default.
    unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            opt,
            &v as *const i32 as *const libc::c_void,
            std::mem::size_of::<i32>() as u32,
        );
    }
}

impl Sock {
    pub fn bind(addr: SocketAddr) -> io::Result<Sock> {
        let udp = UdpSocket::bind(addr)?;
        udp.set_nonblocking(true)?;
        let fd = udp.as_raw_fd();
        // Room for a window of datagrams each way (the kernel caps these at
        // net.core.[rw]mem_max unless the FORCE variants are allowed, as for root).
        for (force, plain) in [
            (libc::SO_SNDBUFFORCE, libc::SO_SNDBUF),
            (libc::SO_RCVBUFFORCE, libc::SO_RCVBUF),
        ] {
            setopt(fd, force, 8 << 20);
            setopt(fd, plain, 8 << 20);
        }
        Ok(Sock { udp })
    }

    /// Wait until the socket is readable or `timeout_ns` passes (0: just check).
    pub fn wait(&self, timeout_ns: u64) {
        let mut pfd = libc::pollfd {
            fd: self.udp.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ts = libc::timespec {
            tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long,
        };
        // SAFETY: one valid pollfd, a valid timespec, no signal mask.
        unsafe { libc::ppoll(&mut pfd, 1, &ts, std::ptr::null()) };
    }

    /// One datagram, if any is waiting.
    pub fn recv<'a>(&self, buf: &'a mut [u8]) -> Option<(&'a [u8], SocketAddr)> {
        loop {
            match self.udp.recv_from(buf) {
                Ok((n, from)) => return Some((&buf[..n], from)),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return None,
            }
        }
    }

    /// Send one datagram; false when the kernel refused it (a full buffer: a loss).
    pub fn send(&self, buf: &[u8], to: SocketAddr) -> bool {
        loop {
            match self.udp.send_to(buf, to) {
                Ok(_) => return true,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return false,
            }
        }
    }
}
