// SCRATCH (not committed)
use rustsat::instances::SatInstance;
use rustsat::solvers::Solve;
#[test]
#[ignore]
fn scratch_sat() {
    for f in std::env::var("CNF").unwrap().split(',') {
        let t = std::time::Instant::now();
        let text = std::fs::read_to_string(f).unwrap();
        let inst: SatInstance =
            SatInstance::from_dimacs(&mut std::io::BufReader::new(text.as_bytes())).unwrap();
        let (cnf, _) = inst.into_cnf();
        let mut s = rustsat_batsat::BasicSolver::default();
        s.add_cnf(cnf).unwrap();
        let r = s.solve().unwrap();
        println!("{f}: {r:?} {:?}", t.elapsed());
    }
}

#[test]
#[ignore]
fn scratch_dump() {
    use checkmate::grid::{self, compile::compile_model, strengthen};
    let names = std::env::var("X").unwrap_or_default();
    let names: Vec<&str> = names.split(',').filter(|n| !n.is_empty()).collect();
    let enc: checkmate::bmc::Encoding = std::env::var("ENC").unwrap_or("auto".into()).parse().unwrap();
    for f in std::env::var("PUZ").unwrap().split(',') {
        let p = grid::parse(&std::fs::read_to_string(f).unwrap()).unwrap();
        let mut o = strengthen::options(&names).unwrap();
        o.stutter = false;
        let (sys, _) = compile_model(&p, &o);
        let text = checkmate::bmc::dimacs(&sys, sys.bound.unwrap(), enc).unwrap();
        std::fs::write(format!("{f}.{}.cnf", names.join("+")), text).unwrap();
    }
}
