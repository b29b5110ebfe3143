//! Shrinking a failing game: days after the failing one dropped, the posts of the days before it
//! emptied (each day's tally reads only its own thread, so they cannot matter), then the failing
//! day's posts taken out one at a time while the failure stays. Deterministic: the same seed
//! shrinks to the same case.

use crate::gen::Game;

/// The game reduced to a small one that still fails the same way (the same check of the
/// same day: a shrink must not wander off to another failure).
pub fn shrink(game: Game, day: u32, round: u32, why: &str) -> Game {
    let want = kind(why);
    shrink_by(game, day, &|g: &Game| {
        crate::run::run(g)
            .failure
            .is_some_and(|(d, r, w)| d == day && r == round && kind(&w) == want)
    })
}

/// Which check failed: "counts", "outcome", "post … has no verdict" → "verdict", ….
fn kind(why: &str) -> String {
    let first = why.lines().next().unwrap_or("");
    if first.contains("has no verdict") {
        "verdict".into()
    } else {
        first.split(':').next().unwrap_or("").to_string()
    }
}

pub fn shrink_by(mut game: Game, day: u32, fails: &dyn Fn(&Game) -> bool) -> Game {
    game.days.truncate(day as usize);
    for d in game.days.iter_mut().filter(|d| d.day < day) {
        d.posts.clear();
        if let Some(r) = &mut d.runoff {
            r.posts.clear();
        }
    }
    if !fails(&game) {
        // The earlier days mattered after all (should not happen): keep what failed.
        return game;
    }
    loop {
        // Round 1's posts, then round 2's (the run-off's candidates stay: the judge's config).
        let one = drop_posts(&mut game, false, fails);
        let two = drop_posts(&mut game, true, fails);
        let smaller = one || two;
        if !smaller {
            return game;
        }
    }
}

/// Take out the last day's posts of one round one at a time while the game still fails.
fn drop_posts(game: &mut Game, round_two: bool, fails: &dyn Fn(&Game) -> bool) -> bool {
    fn posts(g: &mut Game, two: bool) -> Option<&mut Vec<crate::gen::GenPost>> {
        let d = g.days.last_mut()?;
        match two {
            false => Some(&mut d.posts),
            true => d.runoff.as_mut().map(|r| &mut r.posts),
        }
    }
    let mut smaller = false;
    let mut i = 0;
    while i < posts(game, round_two).map_or(0, |p| p.len()) {
        let mut g = game.clone();
        posts(&mut g, round_two).unwrap().remove(i);
        if fails(&g) {
            *game = g;
            smaller = true;
        } else {
            i += 1;
        }
    }
    smaller
}
