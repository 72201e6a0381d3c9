use checkmate::game::strategy::{Planner, Strategy, Ties};
use checkmate::game::table::Builtin;
use checkmate::game::{Game, Route};
use std::time::Instant;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let g: Builtin = args[1].parse().unwrap();
    let t0 = Instant::now();
    let table = g.table();
    println!("native table {:?}", t0.elapsed());
    if args.len() > 2 {
        let t0 = Instant::now();
        let t2 = Game::builtin(g).table(Route::Spec).unwrap();
        println!("spec table {:?} equal {}", t0.elapsed(), t2 == table);
    }
    for s in Strategy::ALL {
        let t0 = Instant::now();
        let tree = Planner::new(&table, s, Ties::PossibleFirst)
            .unwrap()
            .tree(&mut |_, _| {})
            .unwrap();
        let a = tree.analyze(&table).unwrap();
        println!("{s}: {} {} {:?}", a.total, a.worst, t0.elapsed());
    }
}
