//! Checks the one-sided service against the simulator (run by the crate's tests under
//! `mpirun -np 3`): stores, puts, gets, active messages, store_sync and a derived
//! communicator leave every rank's window with the same bytes on real MPI as in
//! the simulator, which this process runs itself as the second method. Exit 0 when
//! they agree, 1 with the difference otherwise.

use mpi::traits::Communicator as _;
use netsens_apps::app::Backend;
use netsens_core::engine::RunOptions;
use netsens_core::platform::presets;
use netsens_core::program::collectives::{allreduce, barrier, split};
use netsens_core::program::{run_program, Op, Rank};
use netsens_mpi::MpiBackend;
use std::cell::RefCell;
use std::rc::Rc;

/// The program: every one-sided operation once per rank, then the window.
async fn program<R: Rank>(r: R) -> Result<Vec<u8>, String> {
    let (me, p) = (r.rank(), r.size());
    let (next, far) = ((me + 1) % p, (me + 2) % p);
    r.expose(64);
    let handle = r.clone();
    // The handler adds its byte at 48 + the sender's rank of the target's window.
    let add = r.register(Rc::new(move |origin, data: &[u8]| {
        handle.window(|w| w[48 + origin as usize] += data[0]);
        0
    }));
    r.store(next, 4 * me as usize, vec![me as u8 + 1; 4]);
    r.put(far, 16 + 2 * me as usize, vec![10 + me as u8; 2]).await;
    r.am(next, add, vec![me as u8 + 7]);
    r.am(far, add, vec![me as u8 + 20]);
    r.store_sync().await;
    barrier(&r, &r.world()).await;
    // Every store is in place: read the next rank's first 12 bytes into our window.
    let got = r.get(next, 0, 12).await;
    r.window(|w| w[32..44].copy_from_slice(&got));
    // A derived communicator: even and odd ranks sum their ranks apart.
    let half = split(&r, &r.world(), (me % 2) as i32, me as i32).await.ok_or("split gave no communicator")?;
    let sum = allreduce(&r, &half, &[me as u8 + 1], Op::Sum).await;
    let (cluster, clusters) = (r.cluster_of(me) as u8, r.cluster_sizes().len() as u8);
    r.window(|w| w[60..63].copy_from_slice(&[sum[0], cluster, clusters]));
    barrier(&r, &r.world()).await;
    Ok(r.window(|w| w.clone()))
}

fn main() {
    let universe = mpi::initialize().expect("MPI initialises");
    let world = universe.world();
    let (me, p) = (world.rank() as usize, world.size() as u32);
    let platform = presets::get("loggopsim").expect("a preset");

    let simulated = Rc::new(RefCell::new(vec![Vec::new(); p as usize]));
    let out = simulated.clone();
    run_program(&platform, p, &RunOptions::default(), move |r| {
        let out = out.clone();
        async move {
            let w = program(r.clone()).await?;
            out.borrow_mut()[r.rank() as usize] = w;
            Ok(())
        }
    })
    .expect("the simulated run finishes");

    let live = Rc::new(RefCell::new(Vec::new()));
    let into = live.clone();
    let run = MpiBackend { world: &world }
        .run(&platform, move |r| {
            let into = into.clone();
            async move {
                *into.borrow_mut() = program(r).await?;
                Ok(())
            }
        })
        .expect("the live run starts");
    run.rank.drain(None);
    let code = match (&run.outcome, &*live.borrow()) {
        (Err(why), _) => {
            eprintln!("rank {me}: {why}");
            1
        }
        (Ok(()), w) if *w != simulated.borrow()[me] => {
            eprintln!("rank {me}: window {w:?}, simulator {:?}", simulated.borrow()[me]);
            1
        }
        _ => 0,
    };
    drop(run);
    drop(universe);
    std::process::exit(code);
}
