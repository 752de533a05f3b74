//! The names ctxc takes as values (strategies, formats, conversion targets, `--on-findings`,
//! encodings), as clap lists them: the shells complete them and `--help` shows them.

use crate::convert::Target as ConvertTarget;
use crate::pipeline::OnFindings;
use crate::strategy::StrategyName;
use crate::tokens::Encoding;
use crate::transcript::Format;
use clap::ValueEnum;
use clap::builder::PossibleValue;

/// Strategy names complete in the shells, and `--help` lists them with what each does.
impl ValueEnum for StrategyName {
    fn value_variants<'a>() -> &'a [Self] {
        &StrategyName::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()))
    }
}

/// Format names complete in the shells.
impl ValueEnum for Format {
    fn value_variants<'a>() -> &'a [Self] {
        &Format::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()))
    }
}

/// `convert --to` targets complete in the shells.
impl ValueEnum for ConvertTarget {
    fn value_variants<'a>() -> &'a [Self] {
        &ConvertTarget::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()))
    }
}

/// `--on-findings` choices complete in the shells.
impl ValueEnum for OnFindings {
    fn value_variants<'a>() -> &'a [Self] {
        &OnFindings::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()))
    }
}

/// Encoding names complete in the shells.
impl ValueEnum for Encoding {
    fn value_variants<'a>() -> &'a [Self] {
        &Encoding::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()))
    }
}
