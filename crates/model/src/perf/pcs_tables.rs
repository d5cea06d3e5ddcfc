//! The PCS artifact's nine measured model tables (the "realistic" set of
//! its workload-2 runs, spec seed001 Appendix A), compiled in as the zoo's
//! `pcs/*` models. Source: GitHub `abdullahfsm/PCS` at commit 62a6ca3,
//! `simulation/models.py` (MIT license; the same numbers as the AFS
//! authors' schedsim `models.csv`, which has no license), as tabulated in
//! `../shared/data/pcs/models.csv`: microseconds per iteration on 1, 2, ...
//! GPUs up to each model's largest useful count.
//!
//! A Philly VC trace row names one of these classes (`VggnetModel256`, ...)
//! and the artifact's simulator runs the app on that class's speed-up
//! curve, `[0] + speedups` with speedup(g) = time(1) / time(g) computed in
//! seconds (the file's `speedup` column, reproduced here to the bit; the
//! same ratio in microseconds differs in the last bit for 82 of the 236
//! entries). The `afs/*` models keep the AFS paper's synthetic curves
//! (docs/AFS.md); `reproduce afs --afs-models` reads the same numbers from
//! the AFS authors' file.

use super::{Behaviour, ModelInfo, SpeedupCurve};

/// One model class of the artifact.
pub struct Table {
    /// The artifact's class name (a trace's `model_name`).
    pub class: &'static str,
    /// The zoo name after `pcs/` (the AFS paper's Table 4 names).
    pub name: &'static str,
    pub what: &'static str,
    /// The batch size in the class name.
    pub batch: u32,
    /// Microseconds per iteration on 1, 2, ... GPUs.
    pub us_per_iter: &'static [u32],
}

impl Table {
    /// speedup(g) for g = 1..=len, as the artifact computes it.
    pub fn speedups(&self) -> Vec<f64> {
        let seconds = |us: u32| us as f64 / 1e6;
        let one = seconds(self.us_per_iter[0]);
        self.us_per_iter.iter().map(|&t| one / seconds(t)).collect()
    }

    /// The zoo model: the measured curve, batch and largest GPU count.
    pub fn model(&self) -> ModelInfo {
        ModelInfo {
            name: format!("pcs/{}", self.name),
            aliases: vec![self.class.to_ascii_lowercase()],
            family: "pcs".into(),
            description: format!(
                "{}, batch {}, measured speed-up on 1-{} GPUs (the PCS artifact's {})",
                self.what,
                self.batch,
                self.us_per_iter.len(),
                self.class
            ),
            provenance: format!(
                "PCS artifact (abdullahfsm/PCS 62a6ca3, simulation/models.py, MIT): {}'s time per iteration on 1-{} GPUs; speed-up = time(1) / time(g)",
                self.class,
                self.us_per_iter.len()
            ),
            default_batch: self.batch,
            max_batch: self.batch,
            max_gpus: self.us_per_iter.len() as u32,
            restart_s: 0.0,
            mem_gb: 0.0,
            default_work: None,
            epochs: None,
            behaviour: Behaviour::Curve {
                curve: SpeedupCurve::Table { s: self.speedups() },
                type_speed: Vec::new(),
            },
        }
    }
}

/// The zoo name of an artifact class (`VggnetModel256` -> `pcs/vgg16`).
pub fn zoo_name(class: &str) -> Option<String> {
    TABLES
        .iter()
        .find(|t| t.class.eq_ignore_ascii_case(class.trim()))
        .map(|t| format!("pcs/{}", t.name))
}

/// The nine classes, in the artifact's order.
pub const TABLES: &[Table] = &[
    Table {
        class: "VggnetModel256",
        name: "vgg16",
        what: "VGG16 on ImageNet",
        batch: 256,
        us_per_iter: &[
            3020532, 1659208, 1263951, 868694, 765689, 662684, 559679, 456675,
        ],
    },
    Table {
        class: "GooglenetModel128",
        name: "googlenet",
        what: "GoogLeNet on ImageNet",
        batch: 128,
        us_per_iter: &[
            346970, 187140, 146661, 106182, 95118, 84055, 72992, 61929, 58369, 54810, 51251, 47692,
            46375, 45058, 43741, 42424, 42077, 41731, 41385, 41039,
        ],
    },
    Table {
        class: "Inception4Model256",
        name: "inception-v4",
        what: "Inception-v4 on ImageNet",
        batch: 256,
        us_per_iter: &[
            5834222, 2988258, 2228434, 1468610, 1288619, 1108629, 928639, 748649, 689155, 629661,
            570167, 510674, 488419, 466165, 443911, 421657, 402481, 383305, 364129, 344953, 334708,
            324464, 314220, 303976, 296448, 288921, 281394, 273867, 269776, 265685, 261594, 257504,
            252463, 247423, 242382, 237342, 234883, 232425, 229966, 227508, 221494, 215481, 209468,
            203455, 202402, 201350, 200298, 199246, 195215, 191185, 187155, 183125,
        ],
    },
    Table {
        class: "Resnet50Model128",
        name: "resnet50",
        what: "ResNet-50 on ImageNet",
        batch: 128,
        us_per_iter: &[
            941170, 474975, 367447, 259920, 234511, 209103, 183695, 158287, 147347, 136408, 125468,
            114529, 111929, 109329, 106729, 104129, 101463, 98797, 96131, 93466, 92738, 92011,
            91283, 90556, 89939, 89322, 88705, 88089,
        ],
    },
    Table {
        class: "DcganModel256",
        name: "dcgan",
        what: "DCGAN on Celeb-A",
        batch: 256,
        us_per_iter: &[
            282031, 155580, 122417, 89254, 81969, 74685, 67401, 60117, 58979, 57841, 56703, 55566,
            53670, 51774, 49878, 47983, 47107, 46232, 45356, 44481,
        ],
    },
    Table {
        class: "VideopredictionModel64",
        name: "video-prediction",
        what: "Video Prediction on Push",
        batch: 64,
        us_per_iter: &[
            1123488, 625106, 502540, 379974, 358674, 337375, 316076, 294777, 286352, 277927,
            269502, 261078, 258117, 255156, 252195, 249234, 244498, 239762, 235026, 230291, 227535,
            224779, 222023, 219267, 219100, 218934, 218768, 218602,
        ],
    },
    Table {
        class: "ChatbotModel256",
        name: "chatbot",
        what: "Chatbot on OpenSubtitles",
        batch: 256,
        us_per_iter: &[114644, 80233, 73326, 66419],
    },
    Table {
        class: "DeepspeechModel64",
        name: "deepspeech2",
        what: "Deep Speech 2 on LibriSpeech",
        batch: 64,
        us_per_iter: &[
            619714, 415717, 385933, 356149, 351970, 347791, 343612, 339434, 338022, 336610, 335198,
            333786, 329423, 325060, 320697, 316334, 314514, 312695, 310875, 309056,
        ],
    },
    Table {
        class: "TransformerModel256",
        name: "transformer",
        what: "Transformer on IWSLT 2016 En-De",
        batch: 256,
        us_per_iter: &[
            2776298, 1466578, 1137556, 808534, 712710, 616886, 521062, 425236, 410333, 395430,
            380527, 365623, 344699, 323775, 302851, 281928, 271382, 260836, 250290, 239742, 237244,
            234746, 232248, 229748, 228650, 227552, 226454, 225357, 222478, 219599, 216720, 213839,
            213596, 213353, 213110, 212868, 209979, 207090, 204201, 201310, 199848, 198386, 196924,
            195461,
        ],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nine_classes_with_their_largest_counts() {
        let max: Vec<(&str, usize)> = TABLES
            .iter()
            .map(|t| (t.class, t.us_per_iter.len()))
            .collect();
        assert_eq!(
            max,
            vec![
                ("VggnetModel256", 8),
                ("GooglenetModel128", 20),
                ("Inception4Model256", 52),
                ("Resnet50Model128", 28),
                ("DcganModel256", 20),
                ("VideopredictionModel64", 28),
                ("ChatbotModel256", 4),
                ("DeepspeechModel64", 20),
                ("TransformerModel256", 44),
            ]
        );
        assert_eq!(zoo_name("ChatbotModel256").as_deref(), Some("pcs/chatbot"));
        assert_eq!(zoo_name("AutoencoderModel51200"), None);
    }
}
