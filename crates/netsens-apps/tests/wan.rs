//! The wide-area suite (Plaat, Bal and Hofman 1998) through the registry: both
//! variants verify on flat machines and on clusters, their message counts agree with
//! counts derived by hand, and the optimized variants cross the wide area less often
//! by a factor derived in each application's documentation.

mod common;

use common::{platform, run_sized};
use netsens_apps::registry::{run_app_variant, AppInfo};
use netsens_core::engine::RunOptions;
use netsens_core::error::Error;
use netsens_core::platform::Platform;
use netsens_core::profile::RunResult;

const VARIANTS: [&str; 2] = ["original", "optimized"];
/// water's and bh's: their original as the seed's system ran it, as message passing,
/// and optimized.
const THREE: [&str; 3] = ["original", "original-messages", "optimized"];

/// `das1998` with `clusters` (e.g. "2x4", or "all" for one cluster).
fn das(clusters: &str) -> Platform {
    platform("das1998", &[("clusters", clusters)])
}

fn try_run(p: &Platform, app: &str, variant: Option<&str>, ranks: u32) -> Result<(RunResult, AppInfo), Error> {
    run_app_variant(app, variant, ranks, "tiny", 0, p, &RunOptions::default(), &mut |_| true)
}

/// `app`'s `variant` at tiny on `ranks` ranks of `p`, which must verify.
fn run(p: &Platform, app: &str, variant: &str, ranks: u32) -> RunResult {
    let (r, info) = try_run(p, app, Some(variant), ranks).unwrap_or_else(|e| panic!("{app} {variant}: {e}"));
    assert!(info.verified);
    r
}

/// Messages over the wide-area links (every link a message crosses counts).
fn wan_messages(r: &RunResult) -> u64 {
    r.wan_links.iter().map(|l| l.messages).sum()
}

/// Every variant of `app` verifies on 1, 2, 3 and 8 ranks of one cluster and on
/// 2 × 4 and 4 × 2 clusters.
fn verifies_everywhere(app: &str, variants: &[&str]) {
    for v in variants {
        for ranks in [1, 2, 3, 8] {
            run(&das("all"), app, v, ranks);
        }
        for shape in ["2x4", "4x2"] {
            run(&das(shape), app, v, 8);
        }
    }
}

// --- variants -------------------------------------------------------------------------

#[test]
fn a_variant_is_refused_where_there_is_none() {
    let err = |app: &str, v: &str| try_run(&das("all"), app, Some(v), 2).map(|_| ()).unwrap_err().to_string();
    assert!(err("radix", "original").contains("radix has no variants"), "{}", err("radix", "original"));
    assert!(err("asp", "fastest").contains("unknown variant \"fastest\""));
    // Without --variant an application without variants runs as before.
    assert!(try_run(&das("all"), "radix", None, 2).is_ok());
}

// --- asp ------------------------------------------------------------------------------

#[test]
fn asp_verifies_in_both_variants() {
    verifies_everywhere("asp", &VARIANTS);
}

#[test]
fn asp_sends_each_row_to_every_other_rank_once() {
    // tiny: n = 24 rows; each reaches the P − 1 ranks that do not own it through one
    // message each (the owner's hand-off standing in for the copy it does not need):
    // 24 · 7 = 168 on 8 ranks, in both variants and on any shape.
    for v in VARIANTS {
        for shape in ["all", "2x4"] {
            let r = run(&das(shape), "asp", v, 8);
            assert_eq!(r.messages, 24 * 7, "{v} on {shape}");
        }
    }
}

#[test]
fn asp_optimized_crosses_the_wide_area_eight_times_less_at_4x8() {
    // Per row: original P − P/C = 32 − 8 = 24 wide-area messages, optimized C − 1 = 3
    // (asp.rs): 24 · 24 = 576 against 24 · 3 = 72, a factor of P/C = 8.
    let p = das("4x8");
    let (orig, opt) = (wan_messages(&run(&p, "asp", "original", 32)), wan_messages(&run(&p, "asp", "optimized", 32)));
    assert_eq!((orig, opt), (24 * 24, 24 * 3));
    assert_eq!(orig / opt, 8);
}

#[test]
fn asp_rows_travel_as_16_bit_distances() {
    // Tiny: 24 distances a row, 2 bytes each on the wire: 48 B; 24 rows to 7 ranks.
    let r = run(&das("2x4"), "asp", "optimized", 8);
    assert_eq!((r.messages, r.bytes), (24 * 7, 24 * 7 * 48));
}

#[test]
fn asp_charges_the_seeds_relaxation_time() {
    // One rank does n³ relaxations of 56 ns (the seed's 188 s for 1500³ over its
    // Table 1): tiny, 24³ · 56 ns = 774 144 ns, and nothing else.
    let (r, _) = run_sized(&das("all"), "asp", 1, "tiny").expect("asp runs");
    assert_eq!(r.makespan_ps, 24 * 24 * 24 * 56_000);
}

#[test]
fn asp_optimized_forwards_inside_a_cluster_down_a_binomial_tree() {
    use netsens_apps::suite::asp::binomial_tree;
    // Positions 1..4 have parents 0, 0, 1, 0 (the highest set bit cleared); a parent
    // sends its largest subtree first: 0 → 4 (bit 4), 0 → 2 and 1 → 3 (bit 2), 0 → 1.
    assert_eq!(binomial_tree(&[10, 11, 12, 13, 14]), [(10, 14), (10, 12), (11, 13), (10, 11)]);
    assert!(binomial_tree(&[7]).is_empty());
    // Tiny on one cluster of 8: for every one of the 24 rows, rank 0 (the coordinator)
    // roots a tree of 8 ranks (its own rows) or of 7 (the owner left out): either way
    // it sends to positions 4, 2 and 1, 3 copies a row, 72 in all; a flat fan-out
    // sent 3 · 7 + 21 · 6 = 147.
    let r = run(&das("all"), "asp", "optimized", 8);
    let sent_by_0: u64 = r.matrix.as_ref().expect("a matrix").iter().filter(|e| e.src == 0).map(|e| e.messages).sum();
    assert_eq!(sent_by_0, 72);
}

#[test]
fn a_row_distance_past_16_bits_is_an_error_not_a_wrap() {
    use netsens_apps::suite::asp::{row_bytes, row_of_bytes, INF};
    let row = vec![0, 7, INF, 65_534];
    assert_eq!(row_of_bytes(&row_bytes(&row).unwrap()), row);
    let err = row_bytes(&[3, 65_535]).unwrap_err();
    assert!(err.contains("65535 does not fit"), "{err}");
}

// --- fft1d ----------------------------------------------------------------------------

#[test]
fn fft1d_verifies_and_has_no_optimized_variant() {
    verifies_everywhere("fft1d", &["original"]);
    let err = try_run(&das("all"), "fft1d", Some("optimized"), 2).map(|_| ()).unwrap_err().to_string();
    assert!(err.contains("fft1d has no optimized variant"), "{err}");
    // Its default is the original.
    assert!(try_run(&das("all"), "fft1d", None, 2).is_ok());
}

#[test]
fn fft1d_sends_three_transposes() {
    // Three transposes of one message per ordered pair of ranks: 3 · 8 · 7 = 168 on 8
    // ranks; at 4 × 8 the pairs in different clusters, 32 · 24 per transpose, cross
    // the wide area: 3 · 768 = 2304. Tiny: 16 × 16 points, 16 B each, so a message
    // between 8 ranks carries 2 × 2 points: 64 B.
    let r = run(&das("all"), "fft1d", "original", 8);
    assert_eq!((r.messages, r.bytes), (168, 168 * 64));
    assert_eq!(wan_messages(&run(&das("4x8"), "fft1d", "original", 32)), 3 * 32 * 24);
}

// --- water ----------------------------------------------------------------------------

#[test]
fn water_verifies_in_every_variant() {
    verifies_everywhere("water", &THREE);
}

#[test]
fn water_sends_positions_and_forces_once_per_pair_of_ranks() {
    // Every unordered pair of ranks is one (needer, owner) pair: one positions message
    // and one forces message per step, P·(P − 1) per step; tiny has 2 steps: 2 · 56
    // on 8 ranks, in both variants and on any shape. Tiny: 32 molecules, 4 a rank,
    // 24 B each: every message is 96 B.
    for v in ["original-messages", "optimized"] {
        for shape in ["all", "2x4", "4x2"] {
            let r = run(&das(shape), "water", v, 8);
            assert_eq!((r.messages, r.bytes), (2 * 56, 2 * 56 * 96), "{v} on {shape}");
        }
    }
}

#[test]
fn water_original_makes_a_blocking_invocation_per_molecule() {
    // Tiny on 8 ranks: 4 molecules a rank; ranks 0–3 need 4 other ranks, 4–7 need 3
    // (water.rs `needs`): 28 (needer, owner) pairs, 112 molecules. Per molecule and
    // step a read (`get`: a request and its reply) and an update (`put`: the data and
    // its acknowledgement), each counted once as the operation it is, plus two
    // dissemination barriers of 3 rounds of 8: 2 · 112 + 48 a step.
    let r = run(&das("2x4"), "water", "original", 8);
    assert_eq!(r.messages, 2 * (2 * 112 + 2 * 24));
}

#[test]
fn water_original_waits_out_each_invocations_round_trip() {
    // Tiny on 2 ranks in two clusters of 1: rank 0 needs rank 1's 16 molecules, rank 1
    // none. Rank 0's path, in one-way wide-area trips: step 1, the first barrier (1),
    // 16 reads and 16 updates one after another (32 round trips: 64); the second
    // barrier costs it nothing (rank 1's message is there). Step 2: the first barrier
    // waits for rank 1, which left the second barrier one trip after rank 0 and sends
    // one trip later (2), then 64 again. Rank 1 ends one trip after rank 0 (its last
    // barrier): 1 + 64 + 2 + 64 + 1 = 132 trips. Every trip passes two gateways: 264,
    // and one more wait at most: at the step boundary rank 0 sends its two barrier
    // messages back to back, and the second queues behind the first (gateway 0) and
    // meets rank 1's barrier message (gateway 1), which the first set off.
    // (Rank 1's computation, 0.54 ms, ends before the first read reaches it.)
    let at = |latency: &str, gateway: &str| {
        let p = platform(
            "das1998",
            &[("clusters", "1,1"), ("wan_latency", latency), ("wan_gateway", gateway), ("wan_bandwidth", "1MB/s")],
        );
        run(&p, "water", "original", 2).makespan_ps
    };
    const MS: u64 = 1_000_000_000;
    const US: u64 = 1_000_000;
    assert_eq!(at("4ms", "0us") - at("3ms", "0us"), 132 * MS);
    let gateways = at("3ms", "50us") - at("3ms", "0us");
    assert!((264 * 50 * US..265 * 50 * US).contains(&gateways), "{gateways} ps");
    // Written as message passing, the same exchange takes two trips a step and the
    // last: a slope of 4 in the wide-area latency.
    let messages = |latency: &str| {
        let p = platform("das1998", &[("clusters", "1,1"), ("wan_latency", latency), ("wan_gateway", "0us")]);
        run(&p, "water", "original-messages", 2).makespan_ps
    };
    assert_eq!(messages("4ms") - messages("3ms"), 4 * MS);
}

#[test]
fn water_optimized_crosses_the_wide_area_six_times_less_at_4x8() {
    // Original: two messages per pair of ranks in different clusters,
    // (32² − 4 · 8²)/2 = 384 pairs: 768 a step.
    // Optimized: two per (owner q, other cluster that needs q). Owner q ≥ 16 is
    // needed by the 16 ranks q − 16 .. q − 1: two clusters other than q's own (if
    // q % 8 = 0 the range is exactly two whole other clusters; otherwise it spans three
    // clusters, q's among them). Owner q < 16 is needed by the 15 ranks q − 15 .. q − 1
    // (mod 32): for q % 8 = 7 those are q's own cluster and one other, for every other
    // q two others. So 16 · 2 + 14 · 2 + 2 · 1 = 62 pairs: 124 a step.
    // Two steps: 1536 against 248, a factor of 6.19.
    let p = das("4x8");
    let orig = wan_messages(&run(&p, "water", "original-messages", 32));
    let opt = wan_messages(&run(&p, "water", "optimized", 32));
    assert_eq!((orig, opt), (2 * 768, 2 * 124));
}

#[test]
fn water_mates_do_not_wait_out_a_coordinators_computation() {
    // Small (512 molecules, 16 a rank) at 4 × 8 with a wide area as fast as the
    // cluster (14 us, 50 MB/s): a step's positions take a few message times of about
    // 2o + L + 384 B · 20 ns/B ≈ 26 us each, while a step's forces take
    // 16 · (15 · 16 + 7.5) pairs · 4.5 us ≈ 18 ms. A cluster mate whose coordinator
    // computed before its forwards left waited one whole forces phase a step for
    // them (positions ≥ forces over the run); now well under a quarter of it.
    let p = platform("das1998", &[("clusters", "4x8"), ("wan_latency", "14us"), ("wan_bandwidth", "50MB/s")]);
    let (r, _) = run_sized(&p, "water", 32, "small").expect("water runs");
    for rank in 0..32 {
        let phase = |name: &str| r.phases.iter().find(|x| x.rank == rank && x.phase == name).expect("a phase");
        let (positions, forces) = (phase("positions").elapsed_ps, phase("forces").compute_ps);
        assert!(positions * 4 < forces, "rank {rank}: positions {positions} ps against forces {forces} ps");
    }
}

// --- tsp ------------------------------------------------------------------------------

/// Uses of `primitive` by `ranks`.
fn used(r: &RunResult, primitive: &str, ranks: std::ops::Range<u32>) -> u64 {
    r.primitives.iter().filter(|x| x.primitive == primitive && ranks.contains(&x.rank)).map(|x| x.count).sum()
}

#[test]
fn tsp_verifies_in_both_variants() {
    verifies_everywhere("tsp", &VARIANTS);
}

#[test]
fn tsp_original_sends_two_messages_per_job_and_worker() {
    // Tiny: 9 cities, jobs of 3 (city 0 and two of the other 8): J = 8 · 7 = 56.
    // Each of the P − 1 workers asks once per job and once more, and gets a reply:
    // 2 · (56 + 7) = 126 on 8 ranks, plus the two reduces of the check (binomial
    // trees, P − 1 messages each).
    let r = run(&das("all"), "tsp", "original", 8);
    assert_eq!(used(&r, "job", 0..8), 56);
    assert_eq!(r.messages, 2 * (56 + 7) + 2 * 7);
}

#[test]
fn tsp_optimized_crosses_the_wide_area_only_to_steal() {
    // Original at 4 × 8: 2 · (J_w + 24) wide-area messages for the J_w jobs the
    // workers of clusters 1–3 take (counted in the profile), plus the edges of the
    // check's two binomial reduces (root 0) that join clusters: 8 → 0 and 24 → 16
    // (mask 8), 16 → 0 (mask 16): 3 each, 6 in all.
    // Optimized: at most 3 · C · (C − 1) = 36 thefts and finish notices, plus the same 6.
    let p = das("4x8");
    let orig = run(&p, "tsp", "original", 32);
    let j_w = used(&orig, "job", 8..32);
    assert_eq!(wan_messages(&orig), 2 * (j_w + 24) + 6);
    let opt = wan_messages(&run(&p, "tsp", "optimized", 32));
    assert!(opt <= 36 + 6, "{opt}");
    // Every remote worker asks at least once, so the original sends at least
    // 2 · 24 + 6 = 54 against the optimized's 42 at most: a factor of at least 1.28.
    // At tiny the jobs are short enough that cluster 0's workers take them all before
    // a remote request lands (J_w = 0); the factor grows with J_w.
    assert!(wan_messages(&orig) >= 54 && opt <= 42);
}

#[test]
fn tsp_runs_of_one_thread_share_searches_without_changing_a_time() {
    // A job's search is kept per thread for its map; a run after runs of other maps
    // (other seeds) and of the same map at another latency must end exactly as a run
    // on a fresh thread does.
    let run_at = |latency: &str, seed: u64| {
        let p = platform("das1998", &[("clusters", "4x8"), ("wan_latency", latency)]);
        let (r, info) =
            run_app_variant("tsp", Some("original"), 32, "small", seed, &p, &RunOptions::default(), &mut |_| true)
                .expect("tsp runs");
        assert!(info.verified);
        (r.makespan_ps, r.ranks.iter().map(|x| x.end_ps).collect::<Vec<_>>())
    };
    let fresh = |latency: &'static str, seed| std::thread::spawn(move || run_at(latency, seed)).join().unwrap();
    let (a, b) = (fresh("3ms", 0), fresh("3ms", 1));
    let after_others = std::thread::spawn(move || {
        run_at("30ms", 0);
        run_at("30ms", 1);
        (run_at("3ms", 0), run_at("3ms", 1))
    })
    .join()
    .unwrap();
    assert_eq!(after_others, (a.clone(), b.clone()));
    assert_ne!(a.0, b.0, "the two seeds' maps differ");
}

// --- bh -------------------------------------------------------------------------------

#[test]
fn bh_verifies_in_every_variant() {
    verifies_everywhere("bh", &THREE);
}

#[test]
fn bh_sends_boxes_and_trees_as_derived() {
    // bh.rs, per step, C clusters of k ranks; tiny has 2 steps.
    // Original: 2·P·(P − 1) = 2 · 56 = 112 on 8 ranks, whatever the shape.
    // Optimized on one cluster: the same 112. On 2 × 4: boxes 2·4·3 + 2·1 + 2·3 = 32,
    // trees 2·4·3 + 2·3 + 2·1 + 2·1·3 = 38: 70. On 4 × 2: boxes 4·2·1 + 4·3 + 4·1 = 24,
    // trees 4·2·1 + 4·1 + 4·3 + 4·3·1 = 36: 60.
    for shape in ["all", "2x4", "4x2"] {
        assert_eq!(run(&das(shape), "bh", "original-messages", 8).messages, 2 * 112, "original on {shape}");
    }
    for (shape, per_step) in [("all", 112), ("2x4", 70), ("4x2", 60)] {
        assert_eq!(run(&das(shape), "bh", "optimized", 8).messages, 2 * per_step, "optimized on {shape}");
    }
}

#[test]
fn bh_original_sends_each_item_uncombined() {
    // Tiny, 8 ranks on 2 × 4, 2 steps, 56 ordered pairs. original-messages sends a box
    // (6 f64: 48 B) and a piece of 32 B per item to every other rank: its bytes give
    // the items, I = (bytes − 2 · 56 · 48) / 32. The original sends the same boxes and
    // one message per item, the first carrying the count (8 B) too (no piece is empty
    // at tiny): 2 · 56 + I messages and 8 B more per pair and step.
    let p = das("2x4");
    let (orig, mp) = (run(&p, "bh", "original", 8), run(&p, "bh", "original-messages", 8));
    let items = (mp.bytes - 2 * 56 * 48) / 32;
    assert_eq!((mp.bytes - 2 * 56 * 48) % 32, 0);
    assert_eq!(orig.messages, 2 * 56 + items);
    assert_eq!(orig.bytes, mp.bytes + 2 * 56 * 8);
}

#[test]
fn bh_optimized_crosses_the_wide_area_sixty_four_times_less_at_4x8() {
    // Per step: original 2·P·(P − k) = 2 · 32 · 24 = 1536, optimized 2·C·(C − 1) = 24
    // (bh.rs): a factor of k² = 64. Two steps.
    let p = das("4x8");
    let (orig, opt) =
        (wan_messages(&run(&p, "bh", "original-messages", 32)), wan_messages(&run(&p, "bh", "optimized", 32)));
    assert_eq!((orig, opt), (2 * 1536, 2 * 24));
    assert_eq!(orig / opt, 64);
}

// --- awari ----------------------------------------------------------------------------

#[test]
fn awari_verifies_in_both_variants() {
    verifies_everywhere("awari", &VARIANTS);
}

/// The rounds of a run (every rank counts each of its rounds once).
fn rounds(r: &RunResult) -> u64 {
    used(r, "round", 0..1)
}

#[test]
fn awari_sends_one_message_per_destination_and_round() {
    // awari.rs, per round: original P·(P − 1) = 56 on 8 ranks, whatever the shape;
    // optimized on one cluster the same; on 2 × 4: 2·4·3 + 2·3 + 2·1 + 2·3 = 38; on
    // 4 × 2: 4·2·1 + 4·1 + 4·3 + 4·1 = 28. The rounds are the same in every run.
    let flat = run(&das("all"), "awari", "original", 8);
    let r_count = rounds(&flat);
    assert!(r_count >= 4, "at least one round per stone count: {r_count}");
    assert_eq!(flat.messages, 56 * r_count);
    for (shape, variant, per_round) in
        [("2x4", "original", 56), ("all", "optimized", 56), ("2x4", "optimized", 38), ("4x2", "optimized", 28)]
    {
        let r = run(&das(shape), "awari", variant, 8);
        assert_eq!(rounds(&r), r_count, "{variant} on {shape}");
        assert_eq!(r.messages, per_round * r_count, "{variant} on {shape}");
    }
}

#[test]
fn awari_optimized_crosses_the_wide_area_sixty_four_times_less_at_4x8() {
    // Per round: original P·(P − k) = 32 · 24 = 768, optimized C·(C − 1) = 12
    // (awari.rs), over the same rounds: a factor of k² = 64.
    let p = das("4x8");
    let (orig, opt) = (run(&p, "awari", "original", 32), run(&p, "awari", "optimized", 32));
    let r_count = rounds(&orig);
    assert_eq!(rounds(&opt), r_count);
    assert_eq!((wan_messages(&orig), wan_messages(&opt)), (768 * r_count, 12 * r_count));
}

#[test]
fn bh_and_awari_counts_hold_for_unequal_clusters() {
    // Clusters of 1, 3 and 4 ranks (the sums of bh.rs and awari.rs over the clusters):
    // Σk(k − 1) = 0 + 6 + 12 = 18, Σ(k − 1) = 0 + 2 + 3 = 5, C(C − 1) = 6.
    // bh per step: boxes 18 + 6 + 5 = 29, trees 18 + 5 + 6 + (C − 1)·5 = 39; 2 steps.
    // awari per round: 18 + 5 + 6 + 5 = 34, against the original's 8 · 7 = 56.
    let p = das("1,3,4");
    assert_eq!(run(&p, "bh", "optimized", 8).messages, 2 * (29 + 39));
    let (orig, opt) = (run(&p, "awari", "original", 8), run(&p, "awari", "optimized", 8));
    assert_eq!(rounds(&opt), rounds(&orig));
    assert_eq!((orig.messages, opt.messages), (56 * rounds(&orig), 34 * rounds(&orig)));
}
