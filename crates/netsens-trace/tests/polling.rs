//! Replay of programs that poll (`MPI_Test*`, `MPI_Iprobe` in a loop), from archives
//! written event by event, against end times derived by hand from LOGGP.md's rules.
//!
//! Both programs: rank 1 computes 10 µs, sends rank 0 one byte and receives one back;
//! rank 0 polls for the message for a long while (the traced run's network was slow),
//! then computes 3 µs and answers. On L = 5 µs, o = 1 µs, g = 0 the message leaves
//! rank 1 at 10 µs, reaches rank 0 at 10 + o + L = 16 µs, which receives it at
//! 16 + o = 17 µs; the answer after 3 µs of compute is sent at 20 µs (o to 21 µs) and
//! received by rank 1 at 21 + L + o = 27 µs: the end, when the polls are waiting.
//! A third program, on 3 ranks, serves requests as they come (`ReadOptions::served`).

use netsens_core::engine::RunOptions;
use netsens_core::platform::Platform;
use netsens_core::schedule::executor::run_schedule;
use netsens_trace::write::{self, write_archive, Event};
use netsens_trace::{
    read_trace_compute, read_trace_options, served_communicators, Algorithms, Compute, PollRuns, ReadOptions, Served,
};

const US: u64 = 1_000_000;

fn platform() -> Platform {
    let mut p = Platform::resolve("loggopsim").unwrap();
    p.set_all(&[("L", "5us"), ("o", "1us"), ("g", "0us"), ("G", "6ns/B"), ("O", "0ns/B")]).unwrap();
    p
}

/// Events of one rank; times in µs; `cpu` makes every Enter and Leave carry the
/// thread CPU time, equal to the wall time.
struct Rank {
    rank: u32,
    cpu: bool,
    events: Vec<(u32, Event)>,
}

impl Rank {
    fn new(rank: u32, cpu: bool) -> Rank {
        Rank { rank, cpu, events: Vec::new() }
    }

    fn push(&mut self, kind: u8, at_us: u64, f: impl FnOnce(&mut Event)) -> &mut Rank {
        let mut e = Event { kind, time_ps: at_us * US, cpu_ps: write::NO_CPU_TIME, ..Event::default() };
        if self.cpu && (kind == write::ENTER || kind == write::LEAVE) {
            e.cpu_ps = e.time_ps;
        }
        f(&mut e);
        self.events.push((self.rank, e));
        self
    }

    /// A call of region `region` from `at` to `at + 1` µs holding `inner` (at `at`).
    fn call(&mut self, region: u32, at: u64, inner: &[(u8, u32, u64)]) -> &mut Rank {
        self.push(write::ENTER, at, |e| e.region = region);
        for &(kind, peer, req) in inner {
            self.push(kind, at, |e| {
                (e.peer, e.req, e.bytes) = (peer, req, 1);
            });
        }
        self.push(write::LEAVE, at + 1, |e| e.region = region)
    }
}

const IRECV: u32 = 0;
const SEND: u32 = 1;
const RECV: u32 = 2;
const IPROBE: u32 = 3;
/// Region 4 is the test call under study.
const TEST: u32 = 4;

/// Rank 1 of both programs: 10 µs of compute, a send to rank 0, a receive from it.
fn partner(cpu: bool) -> Rank {
    let mut r = Rank::new(1, cpu);
    r.call(SEND, 10, &[(write::SEND, 0, 0)]).call(RECV, 11, &[(write::RECV, 0, 0)]);
    r
}

fn end_ps(ranks: [Rank; 2], test: &str, compute: Compute) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let regions = ["MPI_Irecv", "MPI_Send", "MPI_Recv", "MPI_Iprobe", test];
    let events: Vec<(u32, Event)> = ranks.into_iter().flat_map(|r| r.events).collect();
    let anchor = write_archive(&dir.path().join("t"), 2, &regions, &events).unwrap();
    let replay = read_trace_compute(&anchor, Algorithms::default(), compute).unwrap();
    run_schedule(&replay.schedule, &platform(), &RunOptions::default()).unwrap().makespan_ps
}

/// Rank 0 posts an `MPI_Irecv` at 0, computes 2 µs, then tests it 40 times without
/// success (a call every 5 µs: 4 µs between them), completes it at 203 µs, computes
/// 3 µs and sends.
fn tester(cpu: bool) -> Rank {
    let mut r = Rank::new(0, cpu);
    r.call(IRECV, 0, &[(write::IRECV_POST, 0, 1)]);
    for i in 0..40 {
        r.call(TEST, 3 + 5 * i, &[]);
    }
    r.call(TEST, 203, &[(write::IRECV_DONE, 1, 1)]).call(SEND, 207, &[(write::SEND, 1, 0)]);
    r
}

#[test]
fn a_rank_testing_its_receive_waits_for_the_message() {
    // The 2 µs before the first test are compute (rank 0 is idle by 2 µs); the 160 µs
    // between the unsuccessful tests are waiting: the end is 27 µs, as if rank 0 had
    // called MPI_Wait. Each form of test alike.
    for test in ["MPI_Test", "MPI_Testany", "MPI_Testsome"] {
        assert_eq!(end_ps([tester(false), partner(false)], test, Compute::Cpu), 27 * US, "{test}");
    }
}

#[test]
fn with_cpu_times_the_polls_stay_compute() {
    // Ranks sharing cores: the archive's CPU time between the polls is the CPU they took
    // from the core, charged as today: rank 0 computes 2 + 40 · 4 = 162 µs, receives the
    // waiting message then (o to 163 µs), computes 3 µs, sends at 166 µs (o to 167), and
    // rank 1 receives at 167 + L + o = 173 µs.
    assert_eq!(end_ps([tester(true), partner(true)], "MPI_Test", Compute::Cpu), 173 * US);
    // The same archive measured by the wall clock: the polls are waiting again.
    assert_eq!(end_ps([tester(true), partner(true)], "MPI_Test", Compute::Wall), 27 * US);
}

#[test]
fn a_rank_probing_for_a_message_waits_for_it() {
    // Rank 0 computes 2 µs, probes 30 times without success (4 µs between probes), then
    // the probe at 152 µs finds the message, 2 µs of compute (its buffer) before the
    // MPI_Recv at 155 µs, 3 µs after it, and the answer at 159 µs. The probes' gaps are
    // waiting; the 2 µs after the successful probe are compute: the receive is posted at
    // 4 µs, done at 17 µs, the answer sent at 20 µs, received at 27 µs.
    let mut r = Rank::new(0, false);
    for i in 0..31 {
        r.call(IPROBE, 2 + 5 * i, &[]);
    }
    r.call(RECV, 155, &[(write::RECV, 1, 0)]).call(SEND, 159, &[(write::SEND, 1, 0)]);
    assert_eq!(end_ps([r, partner(false)], "MPI_Test", Compute::Cpu), 27 * US);
}

#[test]
fn a_program_without_polls_replays_as_before() {
    // Rank 0 waits in MPI_Recv from 2 µs to 150 µs, computes 3 µs and answers: the
    // receive is posted at 2 µs and done at 17 µs; 3 µs; the answer ends rank 1 at 27 µs.
    let mut r = Rank::new(0, false);
    r.push(write::ENTER, 2, |e| e.region = RECV)
        .push(write::RECV, 150, |e| (e.peer, e.bytes) = (1, 1))
        .push(write::LEAVE, 150, |e| e.region = RECV)
        .call(SEND, 153, &[(write::SEND, 1, 0)]);
    assert_eq!(end_ps([r, partner(false)], "MPI_Test", Compute::Cpu), 27 * US);
}

/// The served-requests program, on 3 ranks: rank 1 computes 30 µs and sends rank 0
/// a request; rank 2 computes 2 µs, sends rank 0 a request and waits in `MPI_Recv` for
/// rank 0's answer. Rank 0 posts a receive at 0, tests it without success 20 times
/// (the traced network delivered rank 1's request first, at 41 µs), completes it,
/// posts a second receive, which the next test completes with rank 2's request, and
/// sends rank 2 its answer: its own work, which needs neither request. `wait` completes
/// the first request in an `MPI_Wait` (region 5) instead of the last test.
fn server(wait: bool) -> Vec<Rank> {
    let mut r0 = Rank::new(0, false);
    r0.call(IRECV, 0, &[(write::IRECV_POST, 0, 1)]);
    for i in 0..20 {
        r0.call(TEST, 1 + 2 * i, &[]);
    }
    r0.call(if wait { 5 } else { TEST }, 41, &[(write::IRECV_DONE, 1, 1)])
        .call(IRECV, 42, &[(write::IRECV_POST, 0, 2)])
        .call(TEST, 43, &[(write::IRECV_DONE, 2, 2)])
        .call(SEND, 44, &[(write::SEND, 2, 0)]);
    let mut r1 = Rank::new(1, false);
    r1.call(SEND, 30, &[(write::SEND, 0, 0)]);
    let mut r2 = Rank::new(2, false);
    r2.call(SEND, 2, &[(write::SEND, 0, 0)]).call(RECV, 3, &[(write::RECV, 0, 0)]);
    vec![r0, r1, r2]
}

fn served_end_ps(ranks: Vec<Rank>, served: &[u32]) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let regions = ["MPI_Irecv", "MPI_Send", "MPI_Recv", "MPI_Iprobe", "MPI_Test", "MPI_Wait"];
    let events: Vec<(u32, Event)> = ranks.into_iter().flat_map(|r| r.events).collect();
    let anchor = write_archive(&dir.path().join("t"), 3, &regions, &events).unwrap();
    let options = ReadOptions { served: Served::Listed(served.to_vec()), ..ReadOptions::default() };
    let replay = read_trace_options(&anchor, options).unwrap();
    run_schedule(&replay.schedule, &platform(), &RunOptions::default()).unwrap().makespan_ps
}

#[test]
fn a_server_goes_on_with_its_work_and_serves_requests_as_they_come() {
    // Served (communicator 0): rank 0's receives order nothing, and its answer leaves at
    // 0 (o to 1 µs), reaches rank 2 at 6 µs and is received at 7 µs (rank 2 sent its
    // request at 2-3 µs). The requests still cost rank 0 a receive's o each: rank 2's
    // arrives at 3 + L = 8 µs (received 8-9), rank 1's leaves at 30 µs and arrives at
    // 31 + L = 36 µs, received at 37 µs: the end.
    assert_eq!(served_end_ps(server(false), &[0]), 37 * US);
    // Not served: the answer waits for both requests, in the traced order: sent at
    // 37-38 µs, received by rank 2 at 38 + L + o = 44 µs.
    assert_eq!(served_end_ps(server(false), &[]), 44 * US);
    // A request the rank waited for (MPI_Wait) orders what follows, served or not.
    assert_eq!(served_end_ps(server(true), &[0]), 44 * US);
}

#[test]
fn served_communicators_are_numbers() {
    assert_eq!(ReadOptions::parse_served(" 1, 3 ").unwrap(), Served::Listed(vec![1, 3]));
    assert_eq!(ReadOptions::parse_served("").unwrap(), Served::Listed(Vec::new()));
    assert_eq!(ReadOptions::parse_served("none").unwrap(), Served::Listed(Vec::new()));
    assert_eq!(ReadOptions::parse_served("auto").unwrap(), Served::Auto);
    let err = ReadOptions::parse_served("1,world").unwrap_err();
    assert!(err.contains("\"world\" is not a communicator reference"), "{err}");
}

/// Rank 0 probes five times without success before it sends (a program that checks
/// for messages before each send): probes of 1 µs at 0, 2, 4, 6 and 8 µs, the send at
/// 10 µs, then a receive of rank 1's answer. Rank 1 receives at 0 and answers at once.
fn prober_before_send() -> [Rank; 2] {
    let mut r0 = Rank::new(0, false);
    for i in 0..5 {
        r0.call(IPROBE, 2 * i, &[]);
    }
    r0.call(SEND, 10, &[(write::SEND, 1, 0)]).call(RECV, 11, &[(write::RECV, 1, 0)]);
    let mut r1 = Rank::new(1, false);
    r1.call(RECV, 0, &[(write::RECV, 0, 0)]).call(SEND, 1, &[(write::SEND, 0, 0)]);
    [r0, r1]
}

fn end_with_poll_runs(ranks: [Rank; 2], poll_runs: PollRuns) -> (u64, Vec<u64>) {
    let dir = tempfile::tempdir().unwrap();
    let regions = ["MPI_Irecv", "MPI_Send", "MPI_Recv", "MPI_Iprobe", "MPI_Test"];
    let events: Vec<(u32, Event)> = ranks.into_iter().flat_map(|r| r.events).collect();
    let anchor = write_archive(&dir.path().join("t"), 2, &regions, &events).unwrap();
    let replay = read_trace_options(&anchor, ReadOptions { poll_runs, ..ReadOptions::default() }).unwrap();
    let charged = replay.measured.iter().map(|m| m.poll_runs_ps).collect();
    (run_schedule(&replay.schedule, &platform(), &RunOptions::default()).unwrap().makespan_ps, charged)
}

#[test]
fn polls_that_end_in_a_send_are_left_out_or_charged_as_work() {
    // Left out (the default): rank 0 sends at 0 (o to 1 µs), rank 1 receives at
    // 1 + L = 6 µs (o to 7), answers at 7 (o to 8), rank 0 receives at 8 + L + o = 14 µs.
    assert_eq!(end_with_poll_runs(prober_before_send(), PollRuns::Wait), (14 * US, vec![0, 0]));
    // As work: the five probes (5 µs), the four gaps between them (4 µs) and the gap
    // after the last (1 µs) are rank 0's compute: it sends at 10 µs, and every time
    // above moves by 10 µs: 24 µs. Of it the run's polls and gaps, 9 µs, are reported.
    let work = PollRuns::Work { tracer_call_ps: 0 };
    assert_eq!(end_with_poll_runs(prober_before_send(), work), (24 * US, vec![9 * US, 0]));
    // Less the tracer's 0.5 µs inside each probe: 2.5 µs of probes, 21.5 µs.
    let less = PollRuns::Work { tracer_call_ps: US / 2 };
    assert_eq!(end_with_poll_runs(prober_before_send(), less), (21 * US + US / 2, vec![6 * US + US / 2, 0]));
}

#[test]
fn as_work_polls_that_found_what_they_polled_for_still_wait() {
    // The tester and the prober above end their runs in what they polled for: 27 µs
    // either way, nothing charged.
    let work = PollRuns::Work { tracer_call_ps: 0 };
    assert_eq!(end_with_poll_runs([tester(false), partner(false)], work), (27 * US, vec![0, 0]));
    let mut r = Rank::new(0, false);
    for i in 0..31 {
        r.call(IPROBE, 2 + 5 * i, &[]);
    }
    r.call(RECV, 155, &[(write::RECV, 1, 0)]).call(SEND, 159, &[(write::SEND, 1, 0)]);
    assert_eq!(end_with_poll_runs([r, partner(false)], work), (27 * US, vec![0, 0]));
}

#[test]
fn poll_runs_are_wait_or_work() {
    assert_eq!(PollRuns::parse("wait", None), Ok(PollRuns::Wait));
    assert_eq!(PollRuns::parse("work", Some(230_000)), Ok(PollRuns::Work { tracer_call_ps: 230_000 }));
    assert!(PollRuns::parse("wait", Some(1)).unwrap_err().contains("applies to poll_runs \"work\" only"));
    assert!(PollRuns::parse("charged", None).unwrap_err().contains("not one of"));
}

/// The served-requests program as a one-sided layer over MPI messages writes it, on 3
/// ranks: rank 1 computes 30 µs and sends rank 0 a request, rank 2 computes 2 µs and
/// sends one, both on communicator 1 with `MPI_Issend` (region 7, or `MPI_Isend`,
/// region 8, with `synchronous` false) completed by an `MPI_Wait`; rank 2 then waits
/// in `MPI_Recv` for rank 0's answer on communicator 0. Rank 0 probes 20 times in vain,
/// then finds rank 1's request (the traced network delivered it first), posts its
/// receive, completes it with a test; the same for rank 2's; then sends rank 2 its
/// answer, its own work. `posted_first` posts the first receive before the probes,
/// as a program does that asks for its message.
fn one_sided_server(synchronous: bool, posted_first: bool) -> Vec<Rank> {
    let mut r0 = Rank::new(0, false);
    let mut t = 0;
    if posted_first {
        r0.push(write::ENTER, 0, |e| e.region = IRECV).push(write::IRECV_POST, 0, |e| e.req = 1).push(
            write::LEAVE,
            0,
            |e| e.region = IRECV,
        );
    }
    for _ in 0..20 {
        r0.call(IPROBE, t, &[]);
        t += 2;
    }
    for (req, peer) in [(1, 1), (2, 2)] {
        r0.call(IPROBE, t, &[]);
        if !(posted_first && req == 1) {
            r0.push(write::ENTER, t + 1, |e| e.region = IRECV).push(write::IRECV_POST, t + 1, |e| e.req = req).push(
                write::LEAVE,
                t + 2,
                |e| e.region = IRECV,
            );
        }
        r0.push(write::ENTER, t + 2, |e| e.region = TEST)
            .push(write::IRECV_DONE, t + 2, |e| (e.peer, e.req, e.bytes, e.comm) = (peer, req, 1, 1))
            .push(write::LEAVE, t + 3, |e| e.region = TEST);
        t += 3;
    }
    r0.call(SEND, t, &[(write::SEND, 2, 0)]);
    let send = if synchronous { 7 } else { 8 };
    let request = |r: &mut Rank, at: u64| {
        r.push(write::ENTER, at, |e| e.region = send)
            .push(write::ISEND, at, |e| (e.peer, e.req, e.bytes, e.comm) = (0, 1, 1, 1))
            .push(write::LEAVE, at + 1, |e| e.region = send)
            .push(write::ENTER, at + 1, |e| e.region = 5)
            .push(write::ISEND_DONE, at + 1, |e| e.req = 1)
            .push(write::LEAVE, at + 1, |e| e.region = 5);
    };
    let mut r1 = Rank::new(1, false);
    request(&mut r1, 30);
    let mut r2 = Rank::new(2, false);
    request(&mut r2, 2);
    r2.call(RECV, 3, &[(write::RECV, 0, 0)]);
    vec![r0, r1, r2]
}

/// The archive of `ranks`, with the regions of [`one_sided_server`].
fn server_archive(dir: &std::path::Path, ranks: Vec<Rank>) -> String {
    let regions =
        ["MPI_Irecv", "MPI_Send", "MPI_Recv", "MPI_Iprobe", "MPI_Test", "MPI_Wait", "-", "MPI_Issend", "MPI_Isend"];
    let events: Vec<(u32, Event)> = ranks.into_iter().flat_map(|r| r.events).collect();
    write_archive(&dir.join("t"), 3, &regions, &events).unwrap()
}

fn replay_end_ps(anchor: &str, served: Served) -> u64 {
    let replay = read_trace_options(anchor, ReadOptions { served, ..ReadOptions::default() }).unwrap();
    run_schedule(&replay.schedule, &platform(), &RunOptions::default()).unwrap().makespan_ps
}

#[test]
fn the_trace_shows_which_communicator_a_rank_serves() {
    let dir = tempfile::tempdir().unwrap();
    // Requests sent synchronously, each received on the probe that found it and
    // completed by a test: communicator 1 is served; 0 (the answer, a blocking send
    // and receive) is not.
    let anchor = server_archive(dir.path(), one_sided_server(true, false));
    assert_eq!(served_communicators(&anchor).unwrap(), vec![1]);
    // By default the replay serves it: 37 µs, as with `served` 1 given (the test
    // above: the answer leaves rank 0 at once; rank 1's request, sent at 30-31 µs,
    // arrives at 36 µs and is received at 37 µs).
    assert_eq!(replay_end_ps(&anchor, Served::Auto), 37 * US);
    assert_eq!(replay_end_ps(&anchor, Served::Listed(vec![1])), 37 * US);
    // Served none: the answer waits for both requests in the traced order (rank 1's
    // received at 36-37 µs, the answer sent at 37-38 µs and received at 38 + L + o).
    assert_eq!(replay_end_ps(&anchor, Served::Listed(Vec::new())), 44 * US);

    // The same requests sent with MPI_Isend: nothing says a sender waits for their
    // taking, so nothing is served.
    let dir = tempfile::tempdir().unwrap();
    let anchor = server_archive(dir.path(), one_sided_server(false, false));
    assert_eq!(served_communicators(&anchor).unwrap(), Vec::<u32>::new());
    assert_eq!(replay_end_ps(&anchor, Served::Auto), 44 * US);

    // A receive posted before its message was there (the rank asked for it): not served.
    let dir = tempfile::tempdir().unwrap();
    let anchor = server_archive(dir.path(), one_sided_server(true, true));
    assert_eq!(served_communicators(&anchor).unwrap(), Vec::<u32>::new());
    assert_eq!(replay_end_ps(&anchor, Served::Auto), 44 * US);
}

#[test]
fn an_archive_without_synchronous_sends_serves_nothing() {
    // The 3-rank server of the tests above, its requests sent with MPI_Send.
    let dir = tempfile::tempdir().unwrap();
    let regions = ["MPI_Irecv", "MPI_Send", "MPI_Recv", "MPI_Iprobe", "MPI_Test", "MPI_Wait"];
    let events: Vec<(u32, Event)> = server(false).into_iter().flat_map(|r| r.events).collect();
    let anchor = write_archive(&dir.path().join("t"), 3, &regions, &events).unwrap();
    assert_eq!(served_communicators(&anchor).unwrap(), Vec::<u32>::new());
    assert_eq!(replay_end_ps(&anchor, Served::Auto), 44 * US);
}
