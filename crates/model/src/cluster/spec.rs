//! Cluster spec strings (`TYPE:NODESxGPUS[,...][@RACK]`) and named built-ins.

use super::{Cluster, GpuKind, NodeGroup, MAX_CLUSTER_GPUS, MAX_GPUS_PER_NODE};
use schedlab_core::error::{Error, Result};
use serde::Serialize;

/// A named cluster shipped with schedlab.
#[derive(Debug, Clone, Serialize)]
pub struct BuiltinCluster {
    pub name: &'static str,
    pub spec: &'static str,
    pub description: &'static str,
}

/// The named clusters, each with the paper setting it reproduces.
pub fn builtin_clusters() -> &'static [BuiltinCluster] {
    BUILTIN_CLUSTERS
}

const BUILTIN_CLUSTERS: &[BuiltinCluster] = &[
        BuiltinCluster { name: "sia-hetero-64", spec: "t4:6x4,rtx:3x8,a100:2x8", description: schedlab_core::prose::doc("Sia thesis heterogeneous simulation cluster: 6 T4 nodes x4, 3 RTX nodes x8, 2 A100 nodes x8 (64 GPUs)") },
        BuiltinCluster { name: "sia-physical-44", spec: "rtx:3x8,a100:2x8,quad:1x4", description: schedlab_core::prose::doc("Sia physical testbed: 3 RTX x8, 2 A100 x8, 1 Quadro x4 (44 GPUs)") },
        BuiltinCluster { name: "homog-64", spec: "t4:16x4", description: schedlab_core::prose::doc("Pollux/Sia homogeneous cluster: 16 g4dn.12xlarge nodes with 4 T4 each (64 GPUs)") },
        BuiltinCluster { name: "afs-64", spec: "gtx1080:16x4", description: schedlab_core::prose::doc("AFS/CoDDL cluster: 16 servers with 4 identical GPUs each (64 GPUs)") },
        BuiltinCluster { name: "pcs-64", spec: "v100:16x4", description: schedlab_core::prose::doc("PCS simulation: homogeneous pool of 64 GPUs (no placement effects)") },
        BuiltinCluster { name: "pcs-testbed-16", spec: "v100:4x4", description: schedlab_core::prose::doc("PCS testbed: 16 GPUs") },
        BuiltinCluster { name: "sts-hetero", spec: "k80-board:4x8,m60-board:4x8,a100-80:4x8", description: schedlab_core::prose::doc("STS experiments: 12 nodes of 8 K80 (24 GB), M60 (16 GB) or A100 (80 GB) GPUs; sts-N gives N such nodes") },
        BuiltinCluster { name: "sts-10", spec: "k80-board:4x8,m60-board:3x8,a100-80:3x8", description: schedlab_core::prose::doc("STS: 10 nodes of 8 GPUs, K80, M60 and A100 round-robin (= the family sts-N at N = 10; the bundled sts-mixed-10 trace's cluster)") },
        BuiltinCluster { name: "pools-32", spec: "v100:1x32", description: schedlab_core::prose::doc("Anticipatory pool sharing: 32 fungible GPUs (one block, no locality, as the paper's simulations) for 4 pools of 8 (the bundled anticipatory-synthetic trace)") },
        BuiltinCluster { name: "pools-4x8", spec: "v100:4x8", description: schedlab_core::prose::doc("Anticipatory pool sharing with locality (§6.4): 4 servers of 8 GPUs for 4 pools of 8; run with engine.placement=cells so that jobs stay on one server and pools own home cells") },
        BuiltinCluster { name: "pools-8", spec: "v100:1x8", description: schedlab_core::prose::doc("Anticipatory pool sharing: 8 fungible GPUs for the Fig 1 example's two pools of 4") },
        BuiltinCluster { name: "sia-hetero-2048", spec: "t4:192x4,rtx:96x8,a100:64x8", description: schedlab_core::prose::doc("Sia scaling experiment: the heterogeneous cluster x32 (2048 GPUs)") },
        BuiltinCluster { name: "copter-256", spec: COPTER_256, description: schedlab_core::prose::doc("COpter simulator cluster at scale 1: 7 GPU types, 256 GPUs (V100 6x8, T4 8x4, A100 SXM 4x8, Quadro 8x4, RTX 6x8, A10 8x4, A100 PCIe 8x4); copter-256xN multiplies every node count by N (x40: 10,240 GPUs)") },
        BuiltinCluster { name: "bench-1024", spec: "v100:128x8", description: schedlab_core::prose::doc("Benchmark cluster: 128 nodes with 8 GPUs (1024 GPUs)") },
    ];

/// The COpter simulator's cluster at scale 1 (`../shared/data/copter/README.md`: azure,
/// aws, dgx-ext, quad, rtx, a10-pcie, a100-pcie).
const COPTER_256: &str = "v100:6x8,t4:8x4,a100:4x8,quad:8x4,rtx:6x8,a10:8x4,a100-pcie:8x4";

/// Parses a built-in name or a spec string into a cluster.
///
/// Grammar: `GROUP[,GROUP...][@RACK]` with `GROUP = TYPE:NODESxGPUS`;
/// `@RACK` puts that many consecutive nodes in each rack.
pub fn parse_cluster(text: &str) -> Result<Cluster> {
    let text = text.trim();
    if let Some(b) = builtin_clusters().iter().find(|b| b.name == text) {
        let mut c = parse_spec(b.spec)?;
        c.name = b.name.to_string();
        return Ok(c);
    }
    if let Some(spec) = copter_scaled(text)? {
        let mut c = parse_spec(&spec)?;
        c.name = text.to_string();
        return Ok(c);
    }
    if let Some(spec) = sts_family(text)? {
        let mut c = parse_spec(&spec)?;
        c.name = text.to_string();
        return Ok(c);
    }
    parse_spec(text)
}

/// `copter-256xN`: the COpter cluster with every node count multiplied by N, as the
/// authors' simulator's `--cluster-scale N` (N = 40: 10,240 GPUs; N = 100: 25,600).
fn copter_scaled(text: &str) -> Result<Option<String>> {
    let Some(n) = text.strip_prefix("copter-256x") else {
        return Ok(None);
    };
    let scale: u32 = n
        .parse()
        .ok()
        .filter(|n| (1..=400).contains(n))
        .ok_or_else(|| {
            Error::config(format!(
                "cluster '{text}': the scale must be an integer from 1 to 400 (e.g. copter-256x40)"
            ))
        })?;
    let groups: Vec<String> = COPTER_256
        .split(',')
        .map(|g| {
            let (ty, size) = g.split_once(':').unwrap_or((g, ""));
            let (nodes, gpus) = size.split_once('x').unwrap_or((size, "0"));
            let nodes: u32 = nodes.parse().unwrap_or(0);
            format!("{ty}:{}x{gpus}", nodes * scale)
        })
        .collect();
    Ok(Some(groups.join(",")))
}

/// STS's node family (spec seed002 §4.2): `sts-N` is N nodes of 8 GPUs whose
/// types go round-robin K80, M60, A100 (the paper draws them uniformly;
/// round-robin gives every size the same mix); `sts-k80m60-N` and
/// `sts-a100-N` are the two families of the sharing study (Fig 6).
fn sts_family(text: &str) -> Result<Option<String>> {
    let (types, n): (&[&str], &str) = if let Some(n) = text.strip_prefix("sts-k80m60-") {
        (&["k80-board", "m60-board"], n)
    } else if let Some(n) = text.strip_prefix("sts-a100-") {
        (&["a100-80"], n)
    } else if let Some(n) = text.strip_prefix("sts-") {
        if !n.bytes().all(|b| b.is_ascii_digit()) {
            return Ok(None);
        }
        (&["k80-board", "m60-board", "a100-80"], n)
    } else {
        return Ok(None);
    };
    let nodes: u32 = n
        .parse()
        .ok()
        .filter(|n| (1..=10_000).contains(n))
        .ok_or_else(|| {
            Error::config(format!(
                "cluster '{text}': the node count must be an integer from 1 to 10000 (e.g. sts-100)"
            ))
        })?;
    let k = types.len() as u32;
    let groups: Vec<String> = types
        .iter()
        .enumerate()
        .map(|(i, t)| (t, (nodes + k - 1 - i as u32) / k))
        .filter(|(_, count)| *count > 0)
        .map(|(t, count)| format!("{t}:{count}x8"))
        .collect();
    Ok(Some(groups.join(",")))
}

fn parse_spec(text: &str) -> Result<Cluster> {
    let bad = |why: String| {
        Error::config(format!(
            "cluster '{text}': {why} (expected a built-in name such as sia-hetero-64, or TYPE:NODESxGPUS[,...], e.g. t4:6x4,rtx:3x8)"
        ))
    };
    if text.is_empty() {
        return Err(bad("empty cluster spec".into()));
    }
    let (groups_text, rack_size) = match text.split_once('@') {
        Some((g, r)) => {
            let r: u32 = r
                .trim()
                .parse()
                .map_err(|_| bad(format!("rack size '{r}' is not a positive integer")))?;
            if r == 0 {
                return Err(bad("rack size must be at least 1".into()));
            }
            (g, r)
        }
        None => (text, 0),
    };
    let mut groups = Vec::new();
    let mut total: u64 = 0;
    for part in groups_text.split(',') {
        let part = part.trim();
        let (ty, shape) = part
            .split_once(':')
            .ok_or_else(|| bad(format!("group '{part}' lacks ':'")))?;
        let kind = GpuKind::by_name(ty).ok_or_else(|| {
            let known: Vec<&str> = super::CATALOG.iter().map(|t| t.name).collect();
            bad(format!(
                "unknown GPU type '{ty}' (known: {})",
                known.join(", ")
            ))
        })?;
        let (nodes, gpus) = shape
            .to_ascii_lowercase()
            .split_once('x')
            .map(|(a, b)| (a.trim().to_string(), b.trim().to_string()))
            .ok_or_else(|| bad(format!("group '{part}' needs NODESxGPUS")))?;
        let nodes: u32 = nodes
            .parse()
            .map_err(|_| bad(format!("node count '{nodes}' is not a positive integer")))?;
        let gpus: u32 = gpus
            .parse()
            .map_err(|_| bad(format!("GPUs per node '{gpus}' is not a positive integer")))?;
        if nodes == 0 || gpus == 0 {
            return Err(bad(format!("group '{part}' has zero nodes or zero GPUs")));
        }
        if gpus > MAX_GPUS_PER_NODE {
            return Err(bad(format!(
                "{gpus} GPUs per node exceeds the maximum of {MAX_GPUS_PER_NODE}"
            )));
        }
        total += nodes as u64 * gpus as u64;
        if total > MAX_CLUSTER_GPUS as u64 {
            return Err(bad(format!("more than {MAX_CLUSTER_GPUS} GPUs")));
        }
        groups.push(NodeGroup {
            kind,
            nodes,
            gpus_per_node: gpus,
        });
    }
    Ok(Cluster::from_groups(text, groups, rack_size))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_have_expected_sizes() {
        let want = [
            ("sia-hetero-64", 64),
            ("sia-physical-44", 44),
            ("homog-64", 64),
            ("afs-64", 64),
        ];
        for (name, gpus) in want {
            let c = parse_cluster(name).unwrap();
            assert_eq!(c.total_gpus, gpus, "{name}");
            assert_eq!(c.name, name);
        }
        let c = parse_cluster("sia-hetero-64").unwrap();
        assert_eq!(c.kinds.len(), 3);
        assert_eq!(c.gpus_of(GpuKind::by_name("rtx").unwrap()), 24);
        for b in builtin_clusters() {
            parse_cluster(b.name).unwrap();
        }
    }

    #[test]
    fn copter_cluster_and_its_scales() {
        let c = parse_cluster("copter-256").unwrap();
        assert_eq!((c.total_gpus, c.kinds.len(), c.nodes.len()), (256, 7, 48));
        let gpus = |c: &Cluster, ty: &str| c.gpus_of(GpuKind::by_name(ty).unwrap());
        assert_eq!(gpus(&c, "a10-pcie"), 32);
        assert_eq!(gpus(&c, "azure"), 48);
        let big = parse_cluster("copter-256x40").unwrap();
        assert_eq!((big.total_gpus, big.nodes.len()), (10_240, 48 * 40));
        assert_eq!(gpus(&big, "a100-pcie"), 40 * 32);
        assert_eq!(big.name, "copter-256x40");
        assert_eq!(parse_cluster("copter-256x100").unwrap().total_gpus, 25_600);
        for bad in ["copter-256x0", "copter-256x401", "copter-256xten"] {
            let e = parse_cluster(bad).unwrap_err().to_string();
            assert!(e.contains(bad) && e.contains("1 to 400"), "{e}");
        }
    }

    #[test]
    fn spec_strings_and_racks() {
        let c = parse_cluster("t4:6x4, rtx:3X8@2").unwrap();
        assert_eq!(c.total_gpus, 48);
        assert_eq!(c.nodes.len(), 9);
        assert_eq!(c.nodes[8].rack, 4);
        assert_eq!(c.nodes[8].first_gpu, 24 + 16);
        assert_eq!(c.node_of_gpu(25).id, 6);
        assert_eq!(c.spec_string(), "t4:6x4,rtx:3x8");
    }

    #[test]
    fn sts_family_sizes_and_mix() {
        let c = parse_cluster("sts-10").unwrap();
        assert_eq!((c.nodes.len(), c.total_gpus), (10, 80));
        let k80 = GpuKind::by_name("k80-board").unwrap();
        let a100 = GpuKind::by_name("a100-80").unwrap();
        assert_eq!((c.nodes_of(k80), c.nodes_of(a100)), (4, 3));
        assert_eq!(parse_cluster("sts-a100-7").unwrap().nodes_of(a100), 7);
        assert_eq!(parse_cluster("sts-k80m60-5").unwrap().nodes_of(k80), 3);
        let e = parse_cluster("sts-0").unwrap_err().to_string();
        assert!(e.contains("sts-0") && e.contains("node count"), "{e}");
        assert!(parse_cluster("sts-hetero").is_ok());
        // The listed sts-10 is the family's N = 10.
        assert_eq!(
            parse_cluster("sts-10").unwrap().spec_string(),
            sts_family("sts-10").unwrap().unwrap()
        );
    }

    #[test]
    fn bad_specs_are_refused_with_reason() {
        for (spec, needle) in [
            ("", "empty"),
            ("t4", "lacks ':'"),
            ("zz:1x4", "unknown GPU type 'zz'"),
            ("t4:0x4", "zero"),
            ("t4:2x", "not a positive integer"),
            ("t4:2x128", "maximum"),
            ("t4:100000x64", "more than"),
        ] {
            let e = parse_cluster(spec).unwrap_err().to_string();
            assert!(e.contains(needle), "{spec}: {e}");
        }
    }
}
