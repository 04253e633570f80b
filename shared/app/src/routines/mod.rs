//! A home's routines: the saved ones (`saved`), the runner that starts
//! scheduled runs and moves every run step by step (`runner`), and the runs
//! as the household reads them (`runs`).

pub mod runner;
pub mod runs;
pub mod saved;
