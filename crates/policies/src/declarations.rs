//! Checks of every policy's settings declarations (tests only): defaults
//! that parse, integer ranges that fit the fields, values that read back
//! the same, and a registry whose parameter lists are the structs' own.

use schedlab_core::settings::{check_declarations, Settings};

/// Every settings struct with its registry names.
fn each(check: &mut dyn FnMut(&[&str], &'static [schedlab_core::params::ParamSpec])) {
    macro_rules! all {
        ($($ty:ty => [$($name:literal),+]),+ $(,)?) => {$(
            check_declarations::<$ty>(concat!($($name, " "),+));
            check(&[$($name),+], <$ty as Settings>::SPECS);
        )+};
    }
    all! {
        crate::fifo::FifoSettings => ["fifo"],
        crate::srtf::SrtfSettings => ["srtf", "srsf"],
        crate::tiresias::TiresiasSettings => ["tiresias"],
        crate::maxmin::MaxMinSettings => ["maxmin"],
        crate::afs::afs_l::AfsLSettings => ["afs-l"],
        crate::afs::afs_p::AfsPSettings => ["afs-p"],
        crate::afs::afs_s::AfsSSettings => ["afs-s"],
        crate::optimus::OptimusSettings => ["optimus"],
        crate::themis::ThemisSettings => ["themis"],
        crate::srtf_e::SrtfESettings => ["srtf-e", "srsf-e"],
        crate::sia::SiaSettings => ["sia"],
        crate::pollux::PolluxSettings => ["pollux"],
        crate::gavel::GavelSettings => ["gavel"],
        crate::gavel::ftf::GavelFtfSettings => ["gavel-ftf"],
        crate::shockwave::ShockwaveSettings => ["shockwave"],
        crate::pcs::PcsSettings => ["pcs"],
        crate::themis_pcs::ThemisPcsSettings => ["themis-pcs"],
        crate::sts::sts::StsSettings => ["sts"],
        crate::sts::rg::RgSettings => ["rg", "avg-rg"],
        crate::sts::dp::DpSettings => ["dp", "avg-dp"],
        crate::anticipatory::asia::AsiaSettings => ["anticipatory"],
        crate::anticipatory::oracle::OracleSettings => ["anticipatory-oracle"],
        crate::anticipatory::maxmin::PoolMaxMinSettings => ["pool-maxmin"],
    }
}

#[test]
fn every_policy_declares_its_settings_once() {
    let mut typed = Vec::new();
    each(&mut |names, specs| {
        for name in names {
            let info = crate::info(name).unwrap();
            let listed: Vec<&str> = info.params.iter().map(|s| s.name).collect();
            let declared: Vec<&str> = specs.iter().map(|s| s.name).collect();
            assert_eq!(
                listed, declared,
                "{name}: the registry lists other parameters than its settings struct"
            );
            typed.push(name.to_string());
        }
    });
    // The policies without a struct have no settings at all.
    for info in crate::registry() {
        if !typed.iter().any(|t| t == info.name) {
            assert!(
                info.params.is_empty(),
                "{}: settings without a struct",
                info.name
            );
        }
        crate::build(info.name, &[], 1).unwrap_or_else(|e| panic!("{}: {e}", info.name));
    }
}
