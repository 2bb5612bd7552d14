//! `fft1d`: a 1-D complex FFT of N = n² points by the transpose (four-step)
//! algorithm (Plaat, Bal and Hofman 1998). The points, seen as an n × n matrix, are
//! split by rows into blocks, one per rank. Transpose, n FFTs of length n along the
//! rows, twiddle factors, transpose, n FFTs again, transpose: the output is in
//! natural order, split by rows as the input was.
//!
//! **Communication**: three transposes, each one message from every rank to every
//! other rank (its rows × the destination's columns, 16 bytes a point): 3·P·(P − 1)
//! messages. Every pair of ranks exchanges a block, so on C equal clusters the
//! P·(P − P/C) of them between clusters cross the wide area whatever the program
//! does: the seed found no cluster-aware form, and there is only the `original`
//! variant.
//!
//! **Check**: every rank compares a few of its outputs with the direct sum of the
//! discrete Fourier transform over the whole input (a second method).

use super::fft_kernel::{fft, mul, root, Plan, C};
use super::wan::{block, OP_PS};
use crate::app::{App, Backend, Job, Size};
use crate::data;
use netsens_core::program::{decode, encode, Rank, Tag};
use netsens_core::time::Time;
use netsens_core::Result;

pub const APP: App = App {
    name: "fft1d",
    description: "1-D complex FFT by the transpose algorithm; three all-to-all transposes",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

const TAG_TRANSPOSE: Tag = 1;
/// A radix-2 butterfly: a complex multiply and two adds, about 10 operations.
const BUTTERFLY_PS: Time = 10 * OP_PS;

#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Side of the matrix: N = side² points.
    pub side: usize,
    pub seed: u64,
}

impl Config {
    pub fn preset(size: Size, seed: u64) -> Config {
        let side = match size {
            Size::Tiny => 16,
            Size::Small => 128,
            Size::Paper => 1024,
        };
        Config { side, seed }
    }

    pub fn points(&self) -> usize {
        self.side * self.side
    }
}

/// The input: point j is (re, im), both uniform in [0, 1).
pub fn input(cfg: &Config, range: std::ops::Range<usize>) -> Vec<C> {
    let v = data::unit_f64s_at(cfg.seed, 0, 2 * range.start as u64, 2 * range.len());
    v.chunks(2).map(|c| [c[0], c[1]]).collect()
}

/// Transpose the n × n matrix whose rows `block(n, P, me)` this rank holds (each row
/// n points): returns its rows of the transpose.
async fn transpose<R: Rank>(r: &R, n: usize, rows: Vec<C>) -> Vec<C> {
    let (me, p, w) = (r.rank(), r.size(), r.world());
    let mine = block(n, p, me);
    let recvs: Vec<_> = (0..p).filter(|&q| q != me).map(|q| (q, r.irecv(&w, q as i32, TAG_TRANSPOSE))).collect();
    let sub = |q: u32| -> Vec<f64> {
        let cols = block(n, p, q);
        rows.chunks(n).flat_map(|row| row[cols.clone()].iter().flatten().copied()).collect()
    };
    let sends: Vec<_> = (0..p).filter(|&q| q != me).map(|q| r.isend(&w, q, TAG_TRANSPOSE, encode(&sub(q)))).collect();
    let own = sub(me);
    let (ids, reqs): (Vec<u32>, Vec<_>) = recvs.into_iter().unzip();
    let got = r.wait_all(reqs).await;
    r.wait_all(sends).await;
    let mut blocks: Vec<Vec<f64>> = vec![Vec::new(); p as usize];
    blocks[me as usize] = own;
    for (q, m) in ids.into_iter().zip(got) {
        blocks[q as usize] = decode(&m.data);
    }
    r.work(OP_PS * (mine.len() * n) as Time, || {
        // Block q holds rows block(q) × my columns; my new row c is column c.
        let mut out = vec![[0.0, 0.0]; mine.len() * n];
        for (q, b) in blocks.iter().enumerate() {
            let src = block(n, p, q as u32);
            for (i, row) in src.clone().enumerate() {
                for c in 0..mine.len() {
                    let k = 2 * (i * mine.len() + c);
                    out[c * n + row] = [b[k], b[k + 1]];
                }
            }
        }
        out
    })
    .await
}

/// FFT every row of `rows` (rows of `n` points).
async fn fft_rows<R: Rank>(r: &R, n: usize, mut rows: Vec<C>) -> Vec<C> {
    let cost = BUTTERFLY_PS * (rows.len() / 2 * n.trailing_zeros() as usize) as Time;
    let plan = Plan::new(n);
    r.work(cost, || rows.chunks_mut(n).for_each(|row| fft(row, &plan, false))).await;
    rows
}

/// The program.
pub async fn fft1d<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let (me, p, n, big) = (r.rank(), r.size(), cfg.side, cfg.points());
    let mine = block(n, p, me);
    // Row j2 of the input holds x[j2·n + j1]; after the transpose row j1 holds the
    // points x[j1 + n·j2] over j2.
    r.phase("transpose");
    let rows = transpose(&r, n, input(&cfg, mine.start * n..mine.end * n)).await;
    r.phase("fft");
    let mut rows = fft_rows(&r, n, rows).await;
    r.work(OP_PS * 6 * rows.len() as Time, || {
        for (i, row) in rows.chunks_mut(n).enumerate() {
            let j1 = mine.start + i;
            row.iter_mut().enumerate().for_each(|(k2, x)| *x = mul(*x, root(j1 * k2, big)));
        }
    })
    .await;
    r.phase("transpose");
    let rows = transpose(&r, n, rows).await;
    r.phase("fft");
    let rows = fft_rows(&r, n, rows).await;
    r.phase("transpose");
    // Row k2 holds X[k2 + n·k1] over k1; transposed, row k1 holds X[k1·n + k2].
    let out = transpose(&r, n, rows).await;
    r.phase("check");
    let x = input(&cfg, 0..big);
    let samples = if mine.is_empty() { vec![] } else { vec![mine.start * n, mine.start * n + n / 2, mine.end * n - 1] };
    for k in samples {
        let want = x.iter().enumerate().fold([0.0, 0.0], |s, (j, &v)| {
            let t = mul(v, root(j * k % big, big));
            [s[0] + t[0], s[1] + t[1]]
        });
        let got = out[k - mine.start * n];
        let err = (got[0] - want[0]).hypot(got[1] - want[1]);
        if err > 1e-9 * big as f64 {
            return Err(format!("X[{k}] = {got:?}, the direct sum gives {want:?}"));
        }
    }
    Ok(())
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed);
    backend.run(job.platform, move |r| fft1d(r, cfg))
}
