//! The catalog of GPU types the simulator knows.
//!
//! Memory sizes are the vendor figures for the boards the papers used; board
//! power (TDP) is the vendor's maximum board power, per GPU. Per-model power
//! draw for energy metrics lives in the model zoo (`perf`).

use serde::Serialize;

/// Index of a GPU type in [`CATALOG`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct GpuKind(pub u8);

/// One GPU type.
#[derive(Debug, Clone, Serialize)]
pub struct GpuType {
    /// Short name used in cluster specs and traces (`t4`, `a100`, ...).
    pub name: &'static str,
    /// Human-readable board name.
    pub label: &'static str,
    /// Memory per GPU in GB.
    pub memory_gb: f64,
    /// Maximum board power per GPU in watts (vendor TDP).
    pub tdp_w: f64,
}

/// Every GPU type the papers use. Order is stable: `GpuKind` indexes it.
pub const CATALOG: &[GpuType] = &[
    GpuType {
        name: "t4",
        label: "NVIDIA T4",
        memory_gb: 16.0,
        tdp_w: 70.0,
    },
    GpuType {
        name: "rtx",
        label: "NVIDIA RTX 2080 Ti",
        memory_gb: 11.0,
        tdp_w: 250.0,
    },
    GpuType {
        name: "a100",
        label: "NVIDIA A100",
        memory_gb: 40.0,
        tdp_w: 400.0,
    },
    GpuType {
        name: "v100",
        label: "NVIDIA V100",
        memory_gb: 32.0,
        tdp_w: 300.0,
    },
    GpuType {
        name: "p100",
        label: "NVIDIA P100",
        memory_gb: 16.0,
        tdp_w: 250.0,
    },
    GpuType {
        name: "k80",
        label: "NVIDIA K80 (one GK210)",
        memory_gb: 12.0,
        tdp_w: 150.0,
    },
    GpuType {
        name: "quad",
        label: "NVIDIA Quadro RTX 6000",
        memory_gb: 24.0,
        tdp_w: 260.0,
    },
    GpuType {
        name: "gtx1080",
        label: "NVIDIA GTX 1080",
        memory_gb: 8.0,
        tdp_w: 180.0,
    },
    GpuType {
        name: "m60",
        label: "NVIDIA Tesla M60 (one GM204)",
        memory_gb: 8.0,
        tdp_w: 150.0,
    },
    GpuType {
        name: "a100-80",
        label: "NVIDIA A100 80GB",
        memory_gb: 80.0,
        tdp_w: 400.0,
    },
    // STS counts a K80 or M60 board (two GPU dies) as one GPU: its memory
    // (24 and 16 GB) sets which GPU fractions a job fits (Table IV).
    GpuType {
        name: "k80-board",
        label: "NVIDIA K80 board (24 GB, as STS counts it)",
        memory_gb: 24.0,
        tdp_w: 300.0,
    },
    GpuType {
        name: "m60-board",
        label: "NVIDIA Tesla M60 board (16 GB, as STS counts it)",
        memory_gb: 16.0,
        tdp_w: 300.0,
    },
    // COpter's 7-type cluster adds two PCIe cards beside the SXM A100 (dgx-ext).
    GpuType {
        name: "a10",
        label: "NVIDIA A10 (24 GB, PCIe)",
        memory_gb: 24.0,
        tdp_w: 150.0,
    },
    GpuType {
        name: "a100-pcie",
        label: "NVIDIA A100 40GB PCIe",
        memory_gb: 40.0,
        tdp_w: 250.0,
    },
];

impl GpuKind {
    /// Looks a type up by its short name (case-insensitive).
    pub fn by_name(name: &str) -> Option<GpuKind> {
        let lower = name.trim().to_ascii_lowercase();
        let alias = match lower.as_str() {
            "aws" | "tesla-t4" => "t4",
            "dgx" | "dgx-ext" | "a100-40" => "a100",
            "azure" => "v100",
            "a10-pcie" => "a10",
            "quadro" => "quad",
            "2080ti" | "rtx2080ti" => "rtx",
            "1080" => "gtx1080",
            other => other,
        };
        CATALOG
            .iter()
            .position(|t| t.name == alias)
            .map(|i| GpuKind(i as u8))
    }

    pub fn info(self) -> &'static GpuType {
        &CATALOG[self.0 as usize]
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases() {
        for t in CATALOG {
            assert_eq!(GpuKind::by_name(t.name).unwrap().name(), t.name);
        }
        assert_eq!(GpuKind::by_name("AWS").unwrap().name(), "t4");
        assert_eq!(GpuKind::by_name("dgx-ext").unwrap().name(), "a100");
        assert!(GpuKind::by_name("h100x").is_none());
    }
}
