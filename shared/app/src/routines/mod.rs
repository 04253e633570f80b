//! A home's routines at work: the runner that starts scheduled runs and
//! moves every run step by step.

pub mod runner;
pub mod saved;
