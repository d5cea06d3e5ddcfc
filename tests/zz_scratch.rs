use schedlab::cluster::parse_cluster;
use schedlab::perf::ModelZoo;
use schedlab::policy;
use schedlab::sim::{EngineConfig, Simulation};
use schedlab::workload::{Adaptivity, JobSpec, Trace};

#[test]
fn scratch() {
    let raw: Vec<(f64, u32, f64, usize, u8, bool)> = vec![
        (1706.0621627231242, 4, 2180.836063853836, 0, 1, false),
        (0.0, 4, 2461.711432309097, 0, 1, true),
        (761.431790849873, 4, 1612.3225179450098, 0, 0, true),
        (1512.0851025283473, 4, 1899.373215868899, 3, 0, false),
        (147.43227800464095, 4, 2311.8768726091826, 0, 1, true),
        (659.3169302527953, 1, 1.0, 0, 0, false),
    ];
    let models = ["linear", "afs/vgg16", "afs/chatbot", "afs/resnet50"];
    let jobs = raw
        .iter()
        .enumerate()
        .map(|(i, (arr, g, dur, m, a, pre))| {
            let mut j = JobSpec::new(
                format!("j{i}"),
                (*arr * 10.0).round() / 10.0,
                models[*m],
                *g,
            )
            .with_duration(*dur);
            j.adaptivity = [
                Adaptivity::Rigid,
                Adaptivity::StrongScaling,
                Adaptivity::Adaptive,
            ][*a as usize];
            j.preemptible = *pre;
            j
        })
        .collect();
    let trace = Trace::from_jobs("prop", jobs).unwrap();
    let cluster = parse_cluster("t4:1x4").unwrap();
    for info in policy::registry() {
        let (pol, _) = policy::build(info.name, &[], 7).unwrap();
        let mut sim = Simulation::new(
            &trace,
            &cluster,
            &ModelZoo::builtin(),
            pol,
            EngineConfig::default(),
        )
        .unwrap();
        let mut steps = 0;
        while sim.step().unwrap() {
            steps += 1;
            if steps > 99990 {
                eprintln!(
                    "t={} {:?}",
                    sim.now(),
                    sim.jobs()
                        .iter()
                        .map(|s| (s.gpus(), s.run_s_at(sim.now())))
                        .collect::<Vec<_>>()
                );
            }
            if steps > 100000 {
                eprintln!("{} runaway at t={}", info.name, sim.now());
                for (j, st) in sim.jobs().iter().enumerate() {
                    eprintln!(
                        "  j{j} {:?} gpus {} prog {}/{}",
                        st.phase,
                        st.gpus(),
                        st.progress,
                        st.work
                    );
                }
                break;
            }
        }
        eprintln!("{}: {} steps", info.name, steps);
    }
}
