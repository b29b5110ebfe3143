//! qipan (seed 003): nights on a judge's map through `resolve_game`, each rule with its seed
//! line. The test map (rows north to south, "#" no cell):
//!
//! ```text
//!      A B C D
//!   1  . . . #
//!   2  . # . .
//!   3  . . . .
//! ```

use bansha::domain::night::{resolve_game, Action, Resolution};
use bansha::domain::rules::state::{Change, GameState};

const GOOD: &[&str] = &["甲", "乙", "丙", "丁", "戊"];

fn game_with(map_extra: &str, readings: &[(&str, &str)]) -> bansha::domain::config::GameConfig {
    let mut text = String::from(
        "ruleset = \"qipan\"\nname = \"测试局\"\nid = \"t\"\n[roster]\nplayers = [\"甲\", \"乙\", \"丙\", \"丁\", \"戊\", \"主\", \"副\"]\n[roster.roles]\n",
    );
    for p in GOOD {
        text.push_str(&format!(
            "\"{p}\" = {{ role = \"好人\", faction = \"好人\" }}\n"
        ));
    }
    text.push_str("\"主\" = { role = \"主杀\", faction = \"杀手\" }\n\"副\" = { role = \"副杀\", faction = \"杀手\" }\n");
    text.push_str("[[days]]\nday = 1\ncloses_at = \"2026-11-29 21:00:00\"\n");
    if !readings.is_empty() {
        text.push_str("[rules.night.readings]\n");
        for (k, v) in readings {
            text.push_str(&format!("{k} = \"{v}\"\n"));
        }
    }
    text.push_str(
        "[rules.night.map]\ngrid = [\"...#\", \".#..\", \"....\"]\n\
         start = { \"甲\" = \"A1\", \"乙\" = \"C1\", \"丙\" = \"D3\", \"丁\" = \"A3\", \"戊\" = \"D2\", \"主\" = \"B3\", \"副\" = \"C2\" }\n",
    );
    text.push_str(map_extra);
    bansha::domain::game::load_str(&text, std::path::Path::new("g.toml")).unwrap()
}

fn game() -> bansha::domain::config::GameConfig {
    game_with("", &[])
}

fn state(dead: &[&str], facts: &[(&str, f64)]) -> GameState {
    let mut s = GameState::default();
    for p in dead {
        s.push(
            Change::Eliminate {
                player: p.to_string(),
                cause: "投死".into(),
                day: Some(1),
            },
            "2026-11-29T21:00:00+08:00".into(),
        );
    }
    for (k, v) in facts {
        s.push(
            Change::Fact {
                key: k.to_string(),
                value: *v,
            },
            "2026-11-29T21:00:00+08:00".into(),
        );
    }
    s
}

fn act(by: &str, power: &str, target: &str) -> Action {
    Action {
        by: vec![by.into()],
        power: power.into(),
        target: (!target.is_empty()).then(|| target.into()),
        platform: None,
        sent_at: None,
        source: format!("{by} {power} {target}"),
    }
}

/// Everyone not named moves somewhere harmless, so only the case's own moves matter.
fn with_rest(mut acts: Vec<Action>) -> Vec<Action> {
    let rest = [
        ("甲", "南"),
        ("乙", "西"),
        ("丙", "西"),
        ("丁", "北"),
        ("戊", "南"),
        ("主", "东"),
        ("副", "东"),
    ];
    for (p, d) in rest {
        if !acts.iter().any(|a| {
            a.by[0] == p && (a.power == "移动" || a.power.contains(['东', '西', '南', '北']))
        }) {
            acts.push(act(p, "移动", d));
        }
    }
    acts
}

fn run(
    g: &bansha::domain::config::GameConfig,
    st: &GameState,
    night: u32,
    acts: &[Action],
) -> Resolution {
    resolve_game(g, st, night, acts, None).unwrap()
}

fn told(r: &Resolution, to: &str) -> String {
    r.feedback
        .iter()
        .filter(|f| f.to == to)
        .map(|f| f.text.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

fn refused(r: &Resolution, by: &str) -> String {
    r.refused
        .iter()
        .filter(|x| x.action.by[0] == by)
        .map(|x| x.reason.clone())
        .collect::<Vec<_>>()
        .join("；")
}

fn dead(r: &Resolution) -> Vec<&str> {
    r.deaths.iter().map(|d| d.player.as_str()).collect()
}

fn pos(r: &Resolution, p: &str) -> f64 {
    r.facts[&format!("位置:{p}")]
}

/// Applies a night's changes, as confirming does.
fn after(mut st: GameState, r: &Resolution) -> GameState {
    for c in r.changes() {
        st.push(c, "2026-11-30T09:00:00+08:00".into());
    }
    st
}

// --- moves (L22–L36) ----------------------------------------------------------------------------

#[test]
fn l24_l27_a_good_player_moves_one_cell_and_is_told_where_he_is() {
    let r = run(
        &game(),
        &state(&[], &[]),
        1,
        &with_rest(vec![act("甲", "移动", "东")]),
    );
    assert!(
        told(&r, "甲").contains("移动成功，你现在位于B1区域"),
        "{}",
        told(&r, "甲")
    );
    assert_eq!(pos(&r, "甲"), 102.0);
}

#[test]
fn l24_l28_a_move_into_no_cell_fails_and_the_player_stays() {
    // 甲 at A1, the north-west corner: north is off the map; 乙 at C1: east is D1, a wall.
    let r = run(
        &game(),
        &state(&[], &[]),
        1,
        &with_rest(vec![act("甲", "北", ""), act("乙", "向东", "")]),
    );
    assert!(
        told(&r, "甲").contains("移动失败，原地停留"),
        "{}",
        told(&r, "甲")
    );
    assert_eq!(pos(&r, "甲"), 101.0);
    assert!(told(&r, "乙").contains("移动失败"));
    assert_eq!(pos(&r, "乙"), 103.0);
    assert!(r.next_day.missed.is_empty(), "{:?}", r.next_day.missed);
}

#[test]
fn l24_moves_in_the_players_own_words_and_only_four_directions_for_the_good() {
    let acts = with_rest(vec![
        act("甲", "移动", "往南走"),
        act("丁", "向东", ""),
        act("戊", "移动", "西北"),
    ]);
    let r = run(&game(), &state(&[], &[]), 1, &acts);
    assert_eq!(pos(&r, "甲"), 201.0);
    assert_eq!(pos(&r, "丁"), 302.0);
    assert!(refused(&r, "戊").contains("东、西、南、北"), "{r:#?}");
    assert!(r.next_day.missed.contains(&"戊".to_string()));
}

#[test]
fn l36_killers_move_in_eight_directions() {
    let r = run(
        &game(),
        &state(&[], &[]),
        1,
        &with_rest(vec![act("主", "移动", "东北")]),
    );
    assert_eq!(pos(&r, "主"), 203.0);
    assert!(told(&r, "主").contains("C2"));
}

#[test]
fn l48_the_killers_are_told_where_the_good_players_went() {
    let r = run(
        &game(),
        &state(&[], &[]),
        1,
        &with_rest(vec![act("甲", "东", "")]),
    );
    let t = told(&r, "主");
    assert!(
        t.contains("好人移动后的位置") && t.contains("甲 在 B1"),
        "{t}"
    );
    assert!(!told(&r, "甲").contains("好人移动后的位置"));
}

#[test]
fn l130_l136_a_missed_night_move_is_a_missed_duty() {
    let r = run(
        &game(),
        &state(&["丁"], &[]),
        1,
        &[act("甲", "东", ""), act("主", "东", "")],
    );
    let missed: std::collections::BTreeSet<&str> =
        r.next_day.missed.iter().map(String::as_str).collect();
    // 丁 is out; 甲 and 主 moved; 乙, 丙, 戊 and 副 sent nothing.
    assert_eq!(missed, ["乙", "丙", "戊", "副"].into_iter().collect());
}

#[test]
fn l32_going_again_the_way_known_to_be_blocked_is_flagged() {
    let st = state(&[], &[("无路:甲:北", 101.0)]);
    let r = run(&game(), &st, 2, &with_rest(vec![act("甲", "北", "")]));
    assert!(r.for_judge.join("\n").contains("L32"), "{:?}", r.for_judge);
}

#[test]
fn positions_carry_from_one_night_to_the_next() {
    let g = game();
    let r1 = run(
        &g,
        &state(&[], &[]),
        1,
        &with_rest(vec![act("甲", "东", "")]),
    );
    let r2 = run(
        &g,
        &after(state(&[], &[]), &r1),
        2,
        &with_rest(vec![act("甲", "东", "")]),
    );
    assert_eq!(pos(&r2, "甲"), 103.0);
}

// --- kills (L40–L49) ----------------------------------------------------------------------------

#[test]
fn l46_a_kill_at_the_map_corner_reaches_the_cells_around_and_diagonals() {
    // 主 from B3 north-west to A2; 甲 stays in the corner A1 (moves north into the edge).
    let acts = with_rest(vec![
        act("主", "西北", ""),
        act("甲", "北", ""),
        act("主", "杀人", "甲"),
    ]);
    let r = run(&game(), &state(&[], &[]), 1, &acts);
    assert_eq!(dead(&r), ["甲"], "{r:#?}");
    // L14 "法官公布被杀的人所在的区域"
    assert!(r.announce.contains("甲 被杀，位于A1区域"), "{}", r.announce);
    // Diagonal (L46 "斜线也算路径为1"): 主 at A2, 乙 moved west to B1.
    let acts = with_rest(vec![act("主", "西北", ""), act("主", "杀人", "乙")]);
    let r = run(&game(), &state(&[], &[]), 1, &acts);
    assert_eq!(dead(&r), ["乙"]);
}

#[test]
fn l46_a_kill_out_of_range_is_void() {
    // 主 to A2; 丙 stays far at C3 (moved west from D3).
    let acts = with_rest(vec![act("主", "西北", ""), act("主", "杀人", "丙")]);
    let r = run(&game(), &state(&[], &[]), 1, &acts);
    assert!(r.deaths.is_empty());
    assert!(
        refused(&r, "主").contains("不在杀手所在的 A2 或周围一格"),
        "{r:#?}"
    );
    assert_eq!(r.facts.get("未杀人夜数"), Some(&1.0));
}

#[test]
fn l42_the_second_killer_kills_only_once_the_first_is_out() {
    // 副 from C2 east to D2, 戊 at D2 moved south to D3.
    let acts = with_rest(vec![act("副", "杀人", "戊")]);
    let r = run(&game(), &state(&[], &[]), 1, &acts);
    assert!(refused(&r, "副").contains("003 L42"), "{r:#?}");
    let r = run(&game(), &state(&["主"], &[]), 1, &acts);
    assert_eq!(dead(&r), ["戊"]);
}

#[test]
fn l49_nights_without_a_kill_are_counted_and_the_second_loses_the_killers() {
    let r = run(
        &game(),
        &state(&[], &[("未杀人夜数", 1.0)]),
        2,
        &with_rest(vec![]),
    );
    assert_eq!(r.facts.get("未杀人夜数"), Some(&2.0));
    assert!(r.win.iter().any(|w| w.contains("杀手负")), "{:?}", r.win);
}

#[test]
fn l65_an_inn_stops_the_attack_and_a_q1_decides_whether_the_night_counts() {
    let extra = "held = { \"主\" = [\"客栈\", \"客栈\", \"客栈\"] }\n";
    let acts = with_rest(vec![
        act("主", "西北", ""),
        act("主", "杀人", "甲"),
        act("主", "客栈", ""),
    ]);
    let r = run(&game_with(extra, &[]), &state(&[], &[]), 1, &acts);
    assert!(r.deaths.is_empty());
    assert!(refused(&r, "主").contains("客栈"));
    assert_eq!(r.facts.get("未杀人夜数"), Some(&1.0));
    assert_eq!(r.facts.get("用掉:主:客栈"), Some(&1.0));
    let r = run(
        &game_with(extra, &[("no_kill_nights", "inn_not_counted")]),
        &state(&[], &[]),
        1,
        &acts,
    );
    assert_eq!(r.facts.get("未杀人夜数"), None);
    assert!(r.readings_used.iter().any(|u| u.id == "A-Q1"));
    // Three inns in all (L65 "共3个").
    let st = state(&[], &[("用掉:主:客栈", 3.0)]);
    let r = run(&game_with(extra, &[]), &st, 4, &acts);
    assert_eq!(dead(&r), ["甲"]);
    assert!(refused(&r, "主").contains("没有客栈"));
}

// --- items (L55–L79) ----------------------------------------------------------------------------

#[test]
fn l29_l75_an_item_is_picked_up_on_its_cell_once_and_used_a_later_night() {
    let g = game_with("items = { B1 = [\"解毒药\"] }\n", &[]);
    let acts = with_rest(vec![
        act("甲", "东", ""),
        act("甲", "解毒药", "甲"),
        act("乙", "北", ""),
    ]);
    let r1 = run(&g, &state(&[], &[]), 1, &acts);
    assert!(
        told(&r1, "甲").contains("经过法官一致判定，你拿到了解毒药道具"),
        "{}",
        told(&r1, "甲")
    );
    assert_eq!(r1.facts.get("得到:甲:解毒药"), Some(&1.0));
    // A-Q3 default next_night: not the night it is picked up.
    assert!(refused(&r1, "甲").contains("其后的夜晚"), "{r1:#?}");
    let r = run(
        &game_with(
            "items = { B1 = [\"解毒药\"] }\n",
            &[("item_same_night", "same_night")],
        ),
        &state(&[], &[]),
        1,
        &acts,
    );
    assert_eq!(r.facts.get("用掉:甲:解毒药"), Some(&1.0), "{r:#?}");
    // Night 2: 乙 (from C1 west) arrives on B1 after 甲 left: nothing is left there.
    let st = after(state(&[], &[]), &r1);
    let r2 = run(&g, &st, 2, &with_rest(vec![act("甲", "西", "")]));
    assert!(told(&r2, "乙").contains("B1区域"), "{}", told(&r2, "乙"));
    assert!(!told(&r2, "乙").contains("拿到"), "{}", told(&r2, "乙"));
}

#[test]
fn l79_two_players_reaching_an_item_together_is_left_to_the_judge_s_formula() {
    // 乙 (C1 west) and 甲 (A1 east) both reach B1.
    let g = game_with("items = { B1 = [\"探路灯\"] }\n", &[]);
    let r = run(
        &g,
        &state(&[], &[]),
        1,
        &with_rest(vec![act("甲", "东", "")]),
    );
    assert!(r.for_judge.join("\n").contains("L79"), "{:?}", r.for_judge);
    assert!(!told(&r, "甲").contains("拿到") && !told(&r, "乙").contains("拿到"));
}

#[test]
fn l59_the_antidote_saves_the_killers_target() {
    let st = state(&[], &[("得到:丁:解毒药", 1.0)]);
    // 主 B3 → A2... stays in range of 丁 (A3 north → A2? no: 丁 moves east to B3).
    let acts = with_rest(vec![
        act("丁", "东", ""),
        act("主", "北", ""),
        act("主", "杀人", "丁"),
        act("丁", "解毒药", "丁"),
    ]);
    // The holder is the victim: A-Q4 default void.
    let r = run(&game(), &st, 2, &acts);
    assert_eq!(dead(&r), ["丁"], "{r:#?}");
    assert!(refused(&r, "丁").contains("A-Q4"));
    let r = run(
        &game_with("", &[("holder_killed_item", "usable")]),
        &st,
        2,
        &acts,
    );
    assert!(r.deaths.is_empty(), "{r:#?}");
    // Another holder saves him.
    let st = state(&[], &[("得到:甲:解毒药", 1.0)]);
    let acts = with_rest(vec![
        act("丁", "东", ""),
        act("主", "北", ""),
        act("主", "杀人", "丁"),
        act("甲", "解毒药", "丁"),
    ]);
    let r = run(&game(), &st, 2, &acts);
    assert!(r.deaths.is_empty(), "{r:#?}");
    assert!(r.announce.contains("昨夜无人被杀"));
    assert_eq!(r.facts.get("未杀人夜数"), Some(&1.0));
    assert_eq!(r.facts.get("用掉:甲:解毒药"), Some(&1.0));
}

#[test]
fn l60_l66_light_finds_a_killer_unless_he_hides() {
    let extra = "held = { \"主\" = [\"隐身\"] }\n";
    let st = state(&[], &[("得到:甲:光照魔法", 1.0)]);
    // 主 moves east from B3 to C3; 甲 lights C3.
    let acts = with_rest(vec![act("甲", "光照魔法", "C3"), act("丙", "北", "")]);
    let r = run(&game_with(extra, &[]), &st, 2, &acts);
    assert!(
        told(&r, "甲").contains("光照魔法：C3 有人"),
        "{}",
        told(&r, "甲")
    );
    let mut hide = acts.clone();
    hide.push(act("主", "隐身", ""));
    let r = run(&game_with(extra, &[]), &st, 2, &hide);
    assert!(
        told(&r, "甲").contains("光照魔法：C3 无人"),
        "{}",
        told(&r, "甲")
    );
    assert_eq!(r.facts.get("用掉:主:隐身"), Some(&1.0));
    // 隐身 hides the killer only: 丙 (D3 west) is on C3 too.
    let r = run(
        &game_with(extra, &[]),
        &st,
        2,
        &with_rest(vec![
            act("甲", "光照魔法", "C3"),
            act("丙", "西", ""),
            act("主", "隐身", ""),
        ]),
    );
    assert!(told(&r, "甲").contains("C3 有人"));
}

#[test]
fn l61_the_lamp_shows_whether_a_direction_has_a_road() {
    let st = state(&[], &[("得到:甲:探路灯", 1.0)]);
    // 甲 moves south to A2: east is B2, a wall.
    let r = run(&game(), &st, 2, &with_rest(vec![act("甲", "探路灯", "东")]));
    assert!(
        told(&r, "甲").contains("探路灯：A2 向东无路"),
        "{}",
        told(&r, "甲")
    );
}

#[test]
fn l71_a_trap_holds_the_next_player_who_steps_on_it_for_a_day() {
    let g = game();
    let st = state(&[], &[("得到:甲:陷阱", 1.0)]);
    let r1 = run(
        &g,
        &st,
        2,
        &with_rest(vec![act("甲", "陷阱", "B1"), act("乙", "北", "")]),
    );
    assert_eq!(r1.facts.get("陷阱:B1"), Some(&1.0));
    // Night 3: 乙 (C1 → B1) steps on it.
    let st = after(st, &r1);
    let r2 = run(&g, &st, 3, &with_rest(vec![]));
    assert!(
        told(&r2, "乙").contains("踩到了陷阱"),
        "{}",
        told(&r2, "乙")
    );
    assert_eq!(r2.facts.get("停留:乙"), Some(&4.0));
    assert_eq!(r2.facts.get("陷阱:B1"), Some(&0.0));
    // Night 4: 乙 stays, his move refused, and it is not a missed duty.
    let st = after(st, &r2);
    let r3 = run(&g, &st, 4, &with_rest(vec![]));
    assert!(refused(&r3, "乙").contains("L71"));
    assert_eq!(pos(&r3, "乙"), 102.0);
    assert!(!r3.next_day.missed.contains(&"乙".to_string()));
}

#[test]
fn l67_the_broom_jumps_one_wall_for_the_second_killer_and_a_q2_decides_when() {
    // 主 is out: 副 (C2) kills. West of C2 is B2 (a wall), then A2. 甲 goes south to A2.
    let extra = "held = { \"副\" = [\"扫帚魔法\"] }\n";
    let acts = with_rest(vec![act("副", "扫帚魔法", "西"), act("副", "杀人", "甲")]);
    let st = state(&["主"], &[]);
    let r = run(&game_with(extra, &[]), &st, 1, &acts);
    // after_kills (default): the kill is from D2 (副's move east), out of range of A2.
    assert!(r.deaths.is_empty(), "{r:#?}");
    assert!(refused(&r, "副").contains("不在杀手所在"), "{r:#?}");
    let r = run(
        &game_with(extra, &[("broom_timing", "with_move")]),
        &st,
        1,
        &acts,
    );
    assert_eq!(dead(&r), ["甲"], "{r:#?}");
    assert_eq!(pos(&r, "副"), 201.0);
    // Not the 主杀's item.
    let r = run(
        &game_with("held = { \"主\" = [\"扫帚魔法\"] }\n", &[]),
        &state(&[], &[]),
        1,
        &with_rest(vec![act("主", "扫帚魔法", "西")]),
    );
    assert!(refused(&r, "主").contains("副杀专用"));
}

#[test]
fn l75_a_dead_holder_s_items_are_gone() {
    let st = state(&["甲"], &[("得到:甲:解毒药", 1.0)]);
    let r = run(&game(), &st, 2, &with_rest(vec![act("甲", "解毒药", "乙")]));
    assert!(refused(&r, "甲").contains("已出局"));
}

// --- order, readings, bad input -----------------------------------------------------------------

#[test]
fn the_resolution_does_not_depend_on_the_order_of_the_actions() {
    let extra = "held = { \"主\" = [\"隐身\"] }\nitems = { B1 = [\"陷阱\"] }\n";
    let st = state(&[], &[("得到:甲:光照魔法", 1.0), ("得到:丁:解毒药", 1.0)]);
    let mut acts = with_rest(vec![
        act("丁", "东", ""),
        act("主", "北", ""),
        act("主", "杀人", "丁"),
        act("甲", "光照魔法", "B2"),
        act("主", "隐身", ""),
        act("乙", "解毒药", "丁"),
    ]);
    let g = game_with(extra, &[]);
    let a = run(&g, &st, 2, &acts);
    acts.reverse();
    let b = run(&g, &st, 2, &acts);
    assert_eq!(a.deaths, b.deaths);
    assert_eq!(a.facts, b.facts);
    assert_eq!(a.next_day, b.next_day);
    let mut fa = a.feedback.clone();
    let mut fb = b.feedback.clone();
    fa.sort_by(|x, y| (&x.to, &x.text).cmp(&(&y.to, &y.text)));
    fb.sort_by(|x, y| (&x.to, &x.text).cmp(&(&y.to, &y.text)));
    assert_eq!(fa, fb);
}

#[test]
fn a_game_without_a_map_or_with_a_bad_one_is_an_error() {
    let text = "ruleset = \"qipan\"\nname = \"t\"\nid = \"t\"\n[roster]\nplayers = [\"甲\"]\n";
    let g = bansha::domain::game::load_str(text, std::path::Path::new("g.toml")).unwrap();
    let err = resolve_game(&g, &state(&[], &[]), 1, &[], None).unwrap_err();
    assert!(err.contains("[rules.night.map]"), "{err}");
    let bad = format!("{text}[rules.night.map]\ngrid = [\".*.\"]\n");
    let g = bansha::domain::game::load_str(&bad, std::path::Path::new("g.toml")).unwrap();
    let err = resolve_game(&g, &state(&[], &[]), 1, &[], None).unwrap_err();
    assert!(err.contains("第 1 行第 2 个字符“*”"), "{err}");
    let bad = format!("{text}[rules.night.map]\ngrid = [\"..\"]\nstart = {{ \"甲\" = \"C1\" }}\n");
    let g = bansha::domain::game::load_str(&bad, std::path::Path::new("g.toml")).unwrap();
    let err = resolve_game(&g, &state(&[], &[]), 1, &[], None).unwrap_err();
    assert!(
        err.contains("night.map.start.甲 = \"C1\"：不是地图上的格子"),
        "{err}"
    );
    // A reading no choice knows is refused when the game config loads, at its key.
    let err = match std::panic::catch_unwind(|| game_with("", &[("broom_timing", "never")])) {
        Err(e) => e.downcast_ref::<String>().cloned().unwrap_or_default(),
        Ok(_) => panic!("a reading no choice knows was accepted"),
    };
    assert!(err.contains("after_kills"), "{err}");
    assert!(err.contains("rules.night.readings.broom_timing"), "{err}");
}

#[test]
fn bad_input_is_refused_with_a_reason_and_the_rest_resolved() {
    let acts = with_rest(vec![
        act("路人", "东", ""),
        act("甲", "飞", "乙"),
        act("乙", "移动", "随便"),
        act("丙", "杀人", "甲"),
        act("主", "杀人", "不存在"),
        act("丁", "解毒药", "甲"),
    ]);
    let r = run(&game(), &state(&[], &[]), 1, &acts);
    let all: Vec<&str> = r.refused.iter().map(|x| x.reason.as_str()).collect();
    assert!(refused(&r, "路人").contains("不是本局玩家"), "{all:?}");
    assert!(
        refused(&r, "甲").contains("“飞”不是本局的夜晚行动"),
        "{all:?}"
    );
    assert!(refused(&r, "乙").contains("看不出方向“随便”"), "{all:?}");
    assert!(refused(&r, "丙").contains("L42"), "{all:?}");
    assert!(refused(&r, "主").contains("不存在”不是本局玩家"), "{all:?}");
    assert!(refused(&r, "丁").contains("没有解毒药"), "{all:?}");
    assert!(r.deaths.is_empty());
    assert!(r.next_day.missed.contains(&"乙".to_string()));
}

#[test]
fn a_q7_a_diagonal_between_two_walls_is_allowed_as_l46_says_and_flagged() {
    // A grid where B1 and A2 are walls: A1 and B2 touch only at the corner.
    let text = "ruleset = \"qipan\"\nname = \"t\"\nid = \"t\"\n[roster]\nplayers = [\"甲\", \"主\"]\n[roster.roles]\n\
        \"甲\" = { role = \"好人\", faction = \"好人\" }\n\"主\" = { role = \"主杀\", faction = \"杀手\" }\n\
        [rules.night.map]\ngrid = [\".#\", \"#.\"]\nstart = { \"甲\" = \"A1\", \"主\" = \"B2\" }\n";
    let g = bansha::domain::game::load_str(text, std::path::Path::new("g.toml")).unwrap();
    let acts = [
        act("甲", "北", ""),
        act("主", "西", ""),
        act("主", "杀人", "甲"),
    ];
    let r = run(&g, &state(&[], &[]), 1, &acts);
    assert_eq!(dead(&r), ["甲"]);
    assert!(r.for_judge.join("\n").contains("A-Q7"), "{:?}", r.for_judge);
}

#[test]
fn l114_a_good_player_s_move_after_22_00_is_late_the_killers_have_until_9_00() {
    let at = |a: Action, t: &str| Action {
        sent_at: chrono::DateTime::parse_from_rfc3339(t).ok(),
        ..a
    };
    let acts = with_rest(vec![
        at(act("甲", "东", ""), "2026-11-29T22:10:00+08:00"),
        at(act("乙", "北", ""), "2026-11-29T21:50:00+08:00"),
        at(act("主", "西北", ""), "2026-11-30T08:00:00+08:00"),
    ]);
    // The night's deadline: 9:00, 720 minutes after the 21:00 close (L116).
    let deadline = chrono::DateTime::parse_from_rfc3339("2026-11-30T09:00:00+08:00").ok();
    let r = resolve_game(&game(), &state(&[], &[]), 1, &acts, deadline).unwrap();
    assert_eq!(r.late.len(), 1, "{:?}", r.late);
    assert_eq!(r.late[0].by, ["甲"]);
    assert!(r.next_day.missed.contains(&"甲".to_string()));
    assert_eq!(pos(&r, "主"), 201.0);
}
