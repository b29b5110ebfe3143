//! jiaohui's night (seed 001 三(一)–(五), 六) through `bansha::domain::night::resolve_game`: a
//! game config with its roster loaded by `bansha::domain::game::load_str`, a state, the night's
//! actions; every rule with its seed line ("001 L76"), attack and defence at and around each
//! threshold, order independence, the judge's readings, bad input, and the win checks after the
//! night.

mod common;

use bansha::domain::config::GameConfig;
use bansha::domain::night::{resolve_game, Action, Resolution};
use bansha::domain::rules::state::{Change, GameState};
use chrono::DateTime;
use std::path::Path;

/// The 18 seats of seed 001 L141: 黑暗领主, 吟游诗人, 恶魔之子, 3 异教徒, 3 十字军剑士, 9 僧侣.
const SEATS: [(&str, &str, &str); 18] = [
    ("领主", "黑暗领主", "异教徒"),
    ("诗人", "吟游诗人", "教会"),
    ("冷雪", "恶魔之子", "异教徒"),
    ("异一", "异教徒", "异教徒"),
    ("异二", "异教徒", "异教徒"),
    ("异三", "异教徒", "异教徒"),
    ("剑一", "十字军剑士", "教会"),
    ("剑二", "十字军剑士", "教会"),
    ("剑三", "十字军剑士", "教会"),
    ("蝈蝈", "僧侣", "教会"),
    ("僧二", "僧侣", "教会"),
    ("僧三", "僧侣", "教会"),
    ("僧四", "僧侣", "教会"),
    ("僧五", "僧侣", "教会"),
    ("僧六", "僧侣", "教会"),
    ("僧七", "僧侣", "教会"),
    ("僧八", "僧侣", "教会"),
    ("僧九", "僧侣", "教会"),
];

const MONKS: [&str; 9] = [
    "蝈蝈", "僧二", "僧三", "僧四", "僧五", "僧六", "僧七", "僧八", "僧九",
];

/// A jiaohui game with the judge's readings (`key = "reading"` lines) in the game config.
fn game(readings: &[(&str, &str)]) -> GameConfig {
    let names: Vec<String> = SEATS.iter().map(|(p, _, _)| format!("\"{p}\"")).collect();
    let mut text = format!(
        "ruleset = \"jiaohui\"\nname = \"测试局\"\n[roster]\nplayers = [{}]\njudges = [\"版杀一室法官\"]\n[roster.roles]\n",
        names.join(", ")
    );
    for (p, role, faction) in SEATS {
        text += &format!("\"{p}\" = {{ role = \"{role}\", faction = \"{faction}\" }}\n");
    }
    if !readings.is_empty() {
        text += "[rules.night.readings]\n";
        for (k, v) in readings {
            text += &format!("{k} = \"{v}\"\n");
        }
    }
    bansha::domain::game::load_str(&text, Path::new("game.toml")).unwrap()
}

/// A state at dusk: `dead` out, `facts` set.
fn state(dead: &[&str], facts: &[(&str, f64)]) -> GameState {
    let mut s = GameState::default();
    for d in dead {
        s.push(
            Change::Eliminate {
                player: d.to_string(),
                cause: "测试".into(),
                day: Some(1),
            },
            String::new(),
        );
    }
    for (k, v) in facts {
        s.push(
            Change::Fact {
                key: k.to_string(),
                value: *v,
            },
            String::new(),
        );
    }
    s
}

fn act(by: &[&str], power: &str, target: &str) -> Action {
    Action {
        by: by.iter().map(|s| s.to_string()).collect(),
        power: power.into(),
        target: (!target.is_empty()).then(|| target.to_string()),
        platform: None,
        sent_at: None,
        source: format!("{} {power} {target}", by.join("+")),
    }
}

fn at(mut a: Action, time: &str) -> Action {
    a.sent_at = DateTime::parse_from_rfc3339(time).ok();
    a.source = format!("{} {time}", a.source);
    a
}

const HERETICS: [&str; 3] = ["异一", "异二", "异三"];
const CRUSADERS: [&str; 3] = ["剑一", "剑二", "剑三"];

/// The heretics' joint kill (001 L63).
fn team_kill(target: &str) -> Action {
    act(&HERETICS, "杀人", target)
}

/// `n` monks (not the target) pray for `target` (001 L76).
fn prayers(target: &str, n: usize) -> Vec<Action> {
    MONKS
        .iter()
        .filter(|m| **m != target)
        .take(n)
        .map(|m| act(&[m], "祈祷", target))
        .collect()
}

fn night(g: &GameConfig, s: &GameState, actions: &[Action]) -> Resolution {
    resolve_game(g, s, 2, actions, None).unwrap()
}

fn dead(r: &Resolution) -> Vec<&str> {
    r.deaths.iter().map(|d| d.player.as_str()).collect()
}

fn figure(r: &Resolution, p: &str) -> (i64, i64) {
    let f = r.figures.iter().find(|f| f.player == p).unwrap();
    (f.attack, f.defence)
}

fn reading<'a>(r: &'a Resolution, key: &str) -> Option<&'a str> {
    r.readings_used
        .iter()
        .find(|u| u.key == key)
        .map(|u| u.reading.as_str())
}

fn refused_reason<'a>(r: &'a Resolution, source_part: &str) -> &'a str {
    r.refused
        .iter()
        .find(|x| x.action.source.contains(source_part))
        .map(|x| x.reason.as_str())
        .unwrap_or_else(|| panic!("no refusal for {source_part}: {:#?}", r.refused))
}

// ---- attack and defence -------------------------------------------------------------------

#[test]
fn an_attack_equal_to_the_defence_kills() {
    // 001 L98 "每个人都拥有数值为“1”的基础防御力…攻击—防御>=0，判定该人死亡"; L63 攻击力 1.
    let r = night(&game(&[]), &state(&[], &[]), &[team_kill("僧二")]);
    assert_eq!(figure(&r, "僧二"), (1, 1));
    assert_eq!(dead(&r), ["僧二"]);
    assert!(
        r.deaths[0].cause.contains("攻击力 1 − 防御力 1"),
        "{}",
        r.deaths[0].cause
    );
    // Nobody attacked: attack 0, nobody dies of a 0 − 1.
    assert_eq!(figure(&r, "僧三"), (0, 1));
}

#[test]
fn the_child_kills_alone_with_attack_one() {
    // 001 L56 "每轮单独提交杀人名单（攻击力：1）".
    let r = night(
        &game(&[]),
        &state(&[], &[]),
        &[act(&["冷雪"], "杀人", "僧三")],
    );
    assert_eq!(figure(&r, "僧三"), (1, 1));
    assert_eq!(dead(&r), ["僧三"]);
}

#[test]
fn prayers_at_and_around_the_threshold_nine_monks_three_heretics() {
    // 001 L76 "大于等于“当前僧侣数／当前异教徒人数（四舍五入）”位僧侣的祈祷，则该人本轮的防御力加1":
    // 9 ÷ 3 = 3.
    let g = game(&[]);
    let s = state(&[], &[]);
    for (n, survives) in [(2, false), (3, true), (4, true)] {
        let mut acts = prayers("蝈蝈", n);
        acts.push(team_kill("蝈蝈"));
        let r = night(&g, &s, &acts);
        let defence = if survives { 2 } else { 1 };
        assert_eq!(figure(&r, "蝈蝈"), (1, defence), "{n} prayers");
        assert_eq!(dead(&r).is_empty(), survives, "{n} prayers");
        // A-J3 decided only where the count equals the threshold.
        assert_eq!(reading(&r, "prayer_threshold").is_some(), n == 3, "{n}");
    }
}

#[test]
fn the_example_of_l80_two_attacks_on_a_prayed_monk_kill() {
    // 001 L80 "恶魔之子提交的杀人名单也是“蝈蝈”，则判定对“蝈蝈”的攻击力为2，防御力为2，“蝈蝈”死亡".
    let mut acts = prayers("蝈蝈", 4);
    acts.push(team_kill("蝈蝈"));
    acts.push(act(&["冷雪"], "杀人", "蝈蝈"));
    let r = night(&game(&[]), &state(&[], &[]), &acts);
    assert_eq!(figure(&r, "蝈蝈"), (2, 2));
    assert_eq!(dead(&r), ["蝈蝈"]);
    // The example's own wording (L80 "有超过3名"): 4 prayers, more than 3, in every reading.
    let r = night(
        &game(&[("prayer_threshold", "more_than")]),
        &state(&[], &[]),
        &acts,
    );
    assert_eq!(figure(&r, "蝈蝈"), (2, 2));
}

#[test]
fn more_than_reading_needs_one_more_prayer() {
    // A-J3: L80 "有超过3名僧侣" read as the rule.
    let g = game(&[("prayer_threshold", "more_than")]);
    for (n, survives) in [(3, false), (4, true)] {
        let mut acts = prayers("蝈蝈", n);
        acts.push(team_kill("蝈蝈"));
        let r = night(&g, &state(&[], &[]), &acts);
        assert_eq!(dead(&r).is_empty(), survives, "{n} prayers");
        if n == 3 {
            assert_eq!(reading(&r, "prayer_threshold"), Some("more_than"));
        }
    }
}

#[test]
fn the_threshold_is_rounded_half_up() {
    // 001 L76 "（四舍五入）": 7 ÷ 3 = 2.33 → 2; 8 ÷ 3 = 2.67 → 3; 5 ÷ 2 = 2.5 → 3.
    let g = game(&[]);
    let cases: [(&[&str], usize, bool); 6] = [
        (&["僧八", "僧九"], 2, true),  // 7 monks, threshold 2: at
        (&["僧八", "僧九"], 1, false), // one below
        (&["僧九"], 2, false),         // 8 monks, threshold 3: one below
        (&["僧九"], 3, true),          // at
        (&["僧六", "僧七", "僧八", "僧九", "异三"], 2, false), // 5 ÷ 2 = 2.5 → 3
        (&["僧六", "僧七", "僧八", "僧九", "异三"], 3, true),
    ];
    for (out, n, survives) in cases {
        let mut acts = prayers("蝈蝈", n);
        acts.push(act(&["冷雪"], "杀人", "蝈蝈"));
        let r = night(&g, &state(out, &[]), &acts);
        assert_eq!(dead(&r).is_empty(), survives, "out {out:?}, {n} prayers");
    }
}

#[test]
fn a_threshold_rounded_to_zero_is_a_reading() {
    // 001 L76 "在提交的祈祷名单中，若某人获得了大于等于…": 1 monk ÷ 3 heretics = 0.33 → 0 (A-J9).
    let out = [
        "僧二", "僧三", "僧四", "僧五", "僧六", "僧七", "僧八", "僧九",
    ];
    let s = state(&out, &[]);
    let acts = [
        act(&["冷雪"], "杀人", "剑一"),
        act(&["冷雪"], "杀人", "诗人"),
    ];
    // Default: in the list: unprayed 剑三 keeps defence 1; 蝈蝈's prayer gives 剑二 +1.
    let mut acts2 = acts.to_vec();
    acts2.push(act(&["蝈蝈"], "祈祷", "剑二"));
    let r = night(&game(&[]), &s, &acts2);
    assert_eq!(figure(&r, "剑三").1, 1);
    assert_eq!(figure(&r, "剑二").1, 2);
    assert_eq!(reading(&r, "prayer_threshold_zero"), Some("in_the_list"));
    // "everyone": every living player has ≥ 0 prayers.
    let r = night(&game(&[("prayer_threshold_zero", "everyone")]), &s, &acts2);
    assert_eq!(figure(&r, "剑三").1, 2);
    assert_eq!(figure(&r, "剑一").1, 2);
    assert!(dead(&r).is_empty());
}

#[test]
fn prayer_lasts_one_night_and_does_not_accumulate() {
    // 001 L76 "“祈祷”所增加的额外防御力只在本轮有效，不累加，不保留": 8 prayers still add 1.
    let mut acts = prayers("剑一", 8);
    acts.push(act(&["冷雪"], "杀人", "剑一"));
    let r = night(&game(&[]), &state(&[], &[]), &acts);
    // Base 1 + prayer 1 (+ no armour against the child, A-J1 default).
    assert_eq!(figure(&r, "剑一"), (1, 2));
    assert!(r.facts.keys().all(|k| !k.contains("祈祷")), "{:?}", r.facts);
}

#[test]
fn prayers_vanish_when_every_heretic_is_dead() {
    // 001 L78 "当异教徒全灭时（恶魔之子未死），僧侣的“祈祷”能力消失".
    let mut acts = prayers("蝈蝈", 5);
    acts.push(act(&["冷雪"], "杀人", "蝈蝈"));
    let r = night(&game(&[]), &state(&HERETICS, &[]), &acts);
    assert_eq!(figure(&r, "蝈蝈"), (1, 1));
    assert_eq!(dead(&r), ["蝈蝈"]);
    assert_eq!(r.refused.len(), 5);
    assert!(r.refused[0].reason.contains("L78"));
}

#[test]
fn a_monk_praying_for_himself_is_a_reading() {
    // 001 L76 "每轮每个僧侣提交一个自己祈祷的对象": silent on oneself (A-J7).
    let mut acts = prayers("蝈蝈", 2);
    acts.push(act(&["蝈蝈"], "祈祷", "蝈蝈"));
    acts.push(team_kill("蝈蝈"));
    let r = night(&game(&[]), &state(&[], &[]), &acts);
    assert!(dead(&r).is_empty(), "3 prayers with his own");
    assert_eq!(reading(&r, "monk_self_prayer"), Some("counts"));
    let r = night(
        &game(&[("monk_self_prayer", "void")]),
        &state(&[], &[]),
        &acts,
    );
    assert_eq!(dead(&r), ["蝈蝈"]);
    assert!(refused_reason(&r, "蝈蝈 祈祷 蝈蝈").contains("A-J7"));
}

// ---- 祝福的铠甲 (001 L70, A-J1) ---------------------------------------------------------------

#[test]
fn armour_stops_one_heretic_attack_of_one_then_is_spent() {
    // 001 L70 "（防御力：1），可抵御异教徒的攻击力为1的一次攻击".
    let g = game(&[]);
    let r = night(&g, &state(&[], &[]), &[team_kill("剑一")]);
    assert_eq!(figure(&r, "剑一"), (1, 2));
    assert!(dead(&r).is_empty());
    assert_eq!(r.facts.get("used:剑一:祝福的铠甲"), Some(&1.0));
    assert_eq!(reading(&r, "crusader_armour"), Some("heretic_attack_once"));
    // The next night, spent: one attack of 1 kills.
    let s = state(&[], &[("used:剑一:祝福的铠甲", 1.0)]);
    let r = night(&g, &s, &[team_kill("剑一")]);
    assert_eq!(figure(&r, "剑一"), (1, 1));
    assert_eq!(dead(&r), ["剑一"]);
}

#[test]
fn armour_by_default_does_nothing_against_the_child_or_a_banked_attack() {
    let g = game(&[]);
    // The 恶魔之子 is not the 异教徒 of L70.
    let r = night(&g, &state(&[], &[]), &[act(&["冷雪"], "杀人", "剑一")]);
    assert_eq!(figure(&r, "剑一"), (1, 1));
    assert_eq!(dead(&r), ["剑一"]);
    assert!(!r.facts.contains_key("used:剑一:祝福的铠甲"));
    // A banked attack of 2 is not "攻击力为1的一次攻击".
    let s = state(
        &[],
        &[("恶魔的祭祀累计攻击力", 2.0), ("恶魔的祭祀轮数", 1.0)],
    );
    let mut acts = prayers("剑一", 3);
    acts.push(team_kill("剑一"));
    let r = night(&g, &s, &acts);
    assert_eq!(figure(&r, "剑一"), (2, 2));
    assert_eq!(dead(&r), ["剑一"]);
    // Heretic 1 + child 1 on a prayed crusader: the armour takes the heretics' 1: 2 − 3 < 0.
    let mut acts = prayers("剑二", 3);
    acts.push(team_kill("剑二"));
    acts.push(act(&["冷雪"], "杀人", "剑二"));
    let r = night(&g, &state(&[], &[]), &acts);
    assert_eq!(figure(&r, "剑二"), (2, 3));
    assert!(dead(&r).is_empty());
}

#[test]
fn armour_readings_permanent_until_attacked_single_attack() {
    let child = [act(&["冷雪"], "杀人", "剑一")];
    // "permanent": +1 for good, never spent.
    let g = game(&[("crusader_armour", "permanent")]);
    let s = state(&[], &[("used:剑一:祝福的铠甲", 1.0)]);
    let r = night(&g, &s, &child);
    assert_eq!(figure(&r, "剑一"), (1, 2));
    assert!(dead(&r).is_empty());
    // "until_first_attack": +1 the first night attacked, then spent.
    let g = game(&[("crusader_armour", "until_first_attack")]);
    let r = night(&g, &state(&[], &[]), &child);
    assert_eq!(figure(&r, "剑一"), (1, 2));
    assert_eq!(r.facts.get("used:剑一:祝福的铠甲"), Some(&1.0));
    // "single_attack_of_one": the child's lone 1 is stopped; 2 on a prayed crusader is not.
    let g = game(&[("crusader_armour", "single_attack_of_one")]);
    let r = night(&g, &state(&[], &[]), &child);
    assert!(dead(&r).is_empty());
    let mut acts = prayers("剑二", 3);
    acts.push(team_kill("剑二"));
    acts.push(act(&["冷雪"], "杀人", "剑二"));
    let r = night(&g, &state(&[], &[]), &acts);
    assert_eq!(figure(&r, "剑二"), (2, 2));
    assert_eq!(dead(&r), ["剑二"]);
}

#[test]
fn armour_does_not_matter_for_monks() {
    let r = night(&game(&[]), &state(&[], &[]), &[team_kill("僧二")]);
    assert!(reading(&r, "crusader_armour").is_none());
}

// ---- 恶魔的祭祀 (001 L64, L65, A-J2, A-J8) -------------------------------------------------

#[test]
fn sacrifice_banks_the_living_heretics_and_kills_nobody() {
    // 001 L65 "第二轮异教徒剩余3人…申请使用“恶魔的祭祀”，则本轮“异教徒”无法攻击任何人".
    let r = night(&game(&[]), &state(&[], &[]), &[act(&HERETICS, "祭祀", "")]);
    assert!(dead(&r).is_empty());
    assert_eq!(r.facts.get("恶魔的祭祀累计攻击力"), Some(&3.0));
    assert_eq!(r.facts.get("恶魔的祭祀轮数"), Some(&1.0));
    // L64 "可无限轮累加": a second 祭祀 with 2 heretics alive adds 2.
    let s = state(
        &["异三"],
        &[("恶魔的祭祀累计攻击力", 3.0), ("恶魔的祭祀轮数", 1.0)],
    );
    let r = night(&game(&[]), &s, &[act(&["异一", "异二"], "祭祀", "")]);
    assert_eq!(r.facts.get("恶魔的祭祀累计攻击力"), Some(&5.0));
    assert_eq!(r.facts.get("恶魔的祭祀轮数"), Some(&2.0));
}

#[test]
fn the_banked_attack_at_and_around_the_defence() {
    // 001 L65 "第三轮时，异教徒再选择攻击某人，则攻击力记为3": the bank is the attack.
    let g = game(&[]);
    for (bank, dies) in [(1.0, false), (2.0, true), (3.0, true)] {
        let s = state(
            &[],
            &[("恶魔的祭祀累计攻击力", bank), ("恶魔的祭祀轮数", 1.0)],
        );
        let mut acts = prayers("蝈蝈", 3);
        acts.push(team_kill("蝈蝈"));
        let r = night(&g, &s, &acts);
        assert_eq!(figure(&r, "蝈蝈"), (bank as i64, 2), "bank {bank}");
        assert_eq!(!dead(&r).is_empty(), dies, "bank {bank}");
        // A-J2 default: spent by the strike.
        assert_eq!(r.facts.get("恶魔的祭祀累计攻击力"), Some(&0.0));
        assert_eq!(reading(&r, "sacrifice_bank_after_strike"), Some("spent"));
    }
    // Without a bank the heretics strike with 1 and the facts are untouched.
    let r = night(&g, &state(&[], &[]), &[team_kill("蝈蝈")]);
    assert!(!r.facts.contains_key("恶魔的祭祀累计攻击力"));
}

#[test]
fn bank_readings_kept_and_recount() {
    // A-J2: "kept" leaves the bank; "recount" strikes with rounds × heretics alive now.
    let s = state(
        &["异三"],
        &[("恶魔的祭祀累计攻击力", 6.0), ("恶魔的祭祀轮数", 2.0)],
    );
    let kill = [act(&["异一", "异二"], "杀人", "僧二")];
    let r = night(&game(&[("sacrifice_bank_after_strike", "kept")]), &s, &kill);
    assert!(!r.facts.contains_key("恶魔的祭祀累计攻击力"));
    assert_eq!(figure(&r, "僧二").0, 6);
    assert_eq!(
        reading(&r, "sacrifice_bank_heretic_deaths"),
        Some("as_banked")
    );
    let r = night(
        &game(&[("sacrifice_bank_heretic_deaths", "recount")]),
        &s,
        &kill,
    );
    assert_eq!(figure(&r, "僧二").0, 4);
    assert_eq!(
        reading(&r, "sacrifice_bank_heretic_deaths"),
        Some("recount")
    );
    // A bank without its rounds (set by hand) strikes as banked in either reading.
    let s = state(&["异三"], &[("恶魔的祭祀累计攻击力", 3.0)]);
    let r = night(
        &game(&[("sacrifice_bank_heretic_deaths", "recount")]),
        &s,
        &kill,
    );
    assert_eq!(figure(&r, "僧二").0, 3);
}

#[test]
fn sacrifice_and_a_kill_list_the_same_round_is_a_reading() {
    // 001 L64 "可在任何一轮向法官申请使用，则该轮不提交杀人名单" (A-J8).
    let acts = [act(&HERETICS, "祭祀", ""), team_kill("僧二")];
    let r = night(&game(&[]), &state(&[], &[]), &acts);
    assert!(dead(&r).is_empty());
    assert_eq!(r.facts.get("恶魔的祭祀累计攻击力"), Some(&3.0));
    assert!(refused_reason(&r, "杀人 僧二").contains("A-J8"));
    assert_eq!(reading(&r, "sacrifice_with_kill"), Some("sacrifice"));
    let r = night(
        &game(&[("sacrifice_with_kill", "kill")]),
        &state(&[], &[]),
        &acts,
    );
    assert_eq!(dead(&r), ["僧二"]);
    assert!(!r.facts.contains_key("恶魔的祭祀累计攻击力"));
    let r = night(
        &game(&[("sacrifice_with_kill", "ask_judge")]),
        &state(&[], &[]),
        &acts,
    );
    assert!(dead(&r).is_empty());
    assert_eq!(r.refused.len(), 2);
    assert!(r.for_judge.iter().any(|l| l.contains("A-J8")));
}

// ---- 恶魔之子 and 背德的徽章 (001 L57, L58) ---------------------------------------------------

#[test]
fn the_badge_stops_the_heretics_until_a_vote_breaks_it() {
    // 001 L57 "可以永远抵御异教徒的攻击"; L58 "“背德的徽章”损坏后…可被异教徒杀死！…只有投票才能毁坏".
    let g = game(&[]);
    let r = night(&g, &state(&[], &[]), &[team_kill("冷雪")]);
    assert_eq!(figure(&r, "冷雪"), (0, 1));
    assert!(dead(&r).is_empty());
    assert!(r
        .figures
        .iter()
        .any(|f| f.player == "冷雪" && f.detail.contains("L57")));
    assert!(
        !r.facts.contains_key("背德的徽章已损坏"),
        "a night never breaks it"
    );
    let s = state(&[], &[("背德的徽章已损坏", 1.0)]);
    let r = night(&g, &s, &[team_kill("冷雪")]);
    assert_eq!(figure(&r, "冷雪"), (1, 1));
    assert_eq!(dead(&r), ["冷雪"]);
}

#[test]
fn every_skill_of_the_night_takes_effect_at_once() {
    // 001 L94 "恶魔之子选择杀“蝈蝈”，同时异教徒选择杀恶魔之子，即使法官先收到异教徒的请求，也判同时生效".
    let s = state(&[], &[("背德的徽章已损坏", 1.0)]);
    let acts = [
        at(team_kill("冷雪"), "2026-12-02T21:00:00+08:00"),
        at(act(&["冷雪"], "杀人", "蝈蝈"), "2026-12-02T22:00:00+08:00"),
    ];
    let r = night(&game(&[]), &s, &acts);
    assert_eq!(dead(&r), ["冷雪", "蝈蝈"]);
}

// ---- 黑暗领主 and 吟游诗人 (001 L84–L92) ---------------------------------------------------

#[test]
fn lord_and_bard_cannot_be_attacked_before_both_powers_are_used() {
    // 001 L86 "黑暗领主在使用“堕落”和“特赦”之前…不被攻击"; L92 the same for 吟游诗人.
    let acts = [team_kill("领主"), act(&["冷雪"], "杀人", "诗人")];
    let r = night(&game(&[]), &state(&[], &[("特赦已用", 1.0)]), &acts);
    assert!(dead(&r).is_empty());
    assert_eq!(figure(&r, "领主"), (0, 1));
    assert!(r
        .states
        .iter()
        .any(|l| l.player == "诗人" && l.why.contains("L92")));
}

#[test]
fn after_both_powers_only_the_heretics_kill_them_by_default() {
    // 001 L86 "在2项权力全部使用过之后，可被异教徒杀害" (A-J6).
    let facts = [
        ("堕落已用", 1.0),
        ("特赦已用", 1.0),
        ("感召已用", 1.0),
        ("圣光已用", 1.0),
    ];
    let acts = [team_kill("领主"), act(&["冷雪"], "杀人", "诗人")];
    let r = night(&game(&[]), &state(&[], &facts), &acts);
    assert_eq!(dead(&r), ["领主"]);
    assert_eq!(reading(&r, "lord_bard_killers"), Some("heretics_only"));
    let g = game(&[("lord_bard_killers", "heretics_and_child")]);
    let r = night(&g, &state(&[], &facts), &acts);
    assert_eq!(dead(&r), ["领主", "诗人"]);
}

#[test]
fn fall_kills_a_crusader_directly_once_per_game() {
    // 001 L84 "若对十字军剑士使用，则可直接使该十字军剑士被杀，本能力全程只可使用一次".
    let mut acts = prayers("剑一", 5);
    acts.push(act(&["领主"], "堕落", "剑一"));
    let r = night(&game(&[]), &state(&[], &[]), &acts);
    assert_eq!(dead(&r), ["剑一"]);
    assert!(r.deaths[0].cause.contains("堕落"));
    assert_eq!(r.facts.get("used:领主:堕落"), Some(&1.0));
    assert_eq!(r.facts.get("堕落已用"), Some(&1.0));
    // Used before: refused.
    let s = state(&[], &[("used:领主:堕落", 1.0)]);
    let r = night(&game(&[]), &s, &[act(&["领主"], "堕落", "剑二")]);
    assert!(dead(&r).is_empty());
    assert!(refused_reason(&r, "堕落 剑二").contains("全程只可使用一次"));
}

#[test]
fn fall_on_a_non_crusader_has_no_effect_and_is_spent_by_default() {
    // 001 L84 "且只对十字军剑士有效" (A-J5).
    let acts = [act(&["领主"], "堕落", "僧二")];
    let r = night(&game(&[]), &state(&[], &[]), &acts);
    assert!(dead(&r).is_empty());
    assert_eq!(r.facts.get("堕落已用"), Some(&1.0));
    assert_eq!(reading(&r, "wrong_target_power"), Some("spent"));
    let r = night(
        &game(&[("wrong_target_power", "not_spent")]),
        &state(&[], &[]),
        &acts,
    );
    assert!(!r.facts.contains_key("堕落已用"));
    assert!(r.powers_used.is_empty());
}

#[test]
fn call_kills_a_heretic_but_not_the_child() {
    // 001 L90 "若对异教徒使用，则可直接使该异教徒被杀…只对异教徒有效"; L59 "不受吟游诗人“感召”的影响".
    let r = night(
        &game(&[]),
        &state(&[], &[]),
        &[act(&["诗人"], "感召", "异一")],
    );
    assert_eq!(dead(&r), ["异一"]);
    assert_eq!(r.facts.get("感召已用"), Some(&1.0));
    let r = night(
        &game(&[]),
        &state(&[], &[]),
        &[act(&["诗人"], "感召", "冷雪")],
    );
    assert!(dead(&r).is_empty());
    assert!(r.for_judge.iter().any(|l| l.contains("L59")));
}

#[test]
fn dusk_powers_before_the_night_change_the_threshold() {
    // 001 L184 "投票截止后黑夜来临前…决定是否使用权利", L114 the order; L94 (A-J4).
    // Four prayers for 蝈蝈; 异三 is 感召'd. Before the night: 9 ÷ 2 = 4.5 → 5, 蝈蝈 unprotected;
    // at dawn: 9 ÷ 3 = 3, protected.
    let mut acts = prayers("蝈蝈", 4);
    acts.push(act(&["诗人"], "感召", "异三"));
    acts.push(act(&["冷雪"], "杀人", "蝈蝈"));
    acts.push(act(&["异三"], "杀人", "僧二"));
    let r = night(&game(&[]), &state(&[], &[]), &acts);
    assert_eq!(dead(&r), ["异三", "蝈蝈"]);
    assert_eq!(reading(&r, "dusk_powers"), Some("before_night"));
    assert!(refused_reason(&r, "异三 杀人 僧二").contains("黄昏"));
    assert!(r.for_judge.iter().any(|l| l.starts_with("异三 在黄昏出局")));
    let r = night(
        &game(&[("dusk_powers", "at_dawn")]),
        &state(&[], &[]),
        &acts,
    );
    assert_eq!(dead(&r), ["异三", "僧二"]);
}

#[test]
fn pardon_and_holy_light_belong_to_the_vote_not_the_night() {
    // 001 L85, L91, L114 "计算高票 -> 征求黑暗领主和吟游诗人意见": [[pardon]] at confirm.
    let acts = [
        act(&["领主"], "特赦", "异一"),
        act(&["诗人"], "圣光", "僧二"),
    ];
    let r = night(&game(&[]), &state(&["异一", "僧二"], &[]), &acts);
    assert_eq!(r.refused.len(), 2);
    assert!(r
        .refused
        .iter()
        .all(|x| x.reason.contains("bansha confirm")));
}

// ---- 搜索 (001 L71, L72) -------------------------------------------------------------------

#[test]
fn search_answers_yes_or_no_to_the_crusaders() {
    // 001 L71 "验证一个人“是否为僧侣”的请求，法官将给予“是”或“不是”的回答"; L72 "每轮共同使用一次".
    let r = night(
        &game(&[]),
        &state(&[], &[]),
        &[act(&CRUSADERS, "搜索", "蝈蝈")],
    );
    assert_eq!(r.feedback.len(), 3);
    assert!(r
        .feedback
        .iter()
        .all(|f| f.text.ends_with("是") && !f.text.ends_with("不是")));
    assert_eq!(r.facts.get("搜索到僧侣:蝈蝈"), Some(&1.0));
    let r = night(
        &game(&[]),
        &state(&[], &[]),
        &[act(&["剑一"], "搜索", "冷雪")],
    );
    assert_eq!(r.feedback.len(), 1);
    assert!(r.feedback[0].text.ends_with("不是"));
    assert!(!r.facts.contains_key("搜索到僧侣:冷雪"));
}

#[test]
fn a_search_answers_even_if_the_searcher_dies_that_night() {
    // 001 L94 "均判同时生效".
    let acts = [
        act(&["剑一"], "搜索", "僧二"),
        act(&["冷雪"], "杀人", "剑一"),
    ];
    let r = night(&game(&[]), &state(&[], &[]), &acts);
    assert_eq!(dead(&r), ["剑一"]);
    assert_eq!(r.feedback[0].to, "剑一");
    assert!(r.feedback[0].text.ends_with("是"));
}

// ---- 公布 (001 L117, L118) -----------------------------------------------------------------

#[test]
fn the_dawn_post_names_the_dead_with_their_true_roles_and_no_cause() {
    // 001 L117 "所有牺牲的角色都公布其真实身份"; L118 "黑暗领主和吟游诗人是否使用特技不公布".
    let acts = [act(&["领主"], "堕落", "剑一"), team_kill("僧二")];
    let r = night(&game(&[]), &state(&[], &[]), &acts);
    assert_eq!(
        r.announce,
        "[b]第2夜[/b]\n[b]剑一[/b] 死亡，身份：[b]十字军剑士[/b]\n[b]僧二[/b] 死亡，身份：[b]僧侣[/b]\n"
    );
    assert!(!r.announce.contains("堕落"));
    // 001 L191 "法官会通过站内短信或QQ方式通知死亡的玩家，死者在截止时间前，提供【遗言】".
    assert!(r
        .for_judge
        .iter()
        .any(|l| l.starts_with("通知 剑一") && l.contains("遗言")));
    assert!(r.for_judge.iter().any(|l| l.starts_with("通知 僧二")));
    let r = night(&game(&[]), &state(&[], &[]), &[]);
    assert!(r.announce.contains("平安夜"));
}

// ---- win checks after the night (001 L100–L110) ---------------------------------------------

#[test]
fn church_wins_a_when_every_surviving_monk_is_found_and_five_survive() {
    // 001 L102 "十字军剑士搜索到所有存活僧侣，且有5名（含）以上的僧侣幸存".
    let g = game(&[]);
    let found: Vec<(String, f64)> = ["蝈蝈", "僧二", "僧三", "僧四"]
        .iter()
        .map(|m| (format!("搜索到僧侣:{m}"), 1.0))
        .collect();
    let facts: Vec<(&str, f64)> = found.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let win = "教会胜（A）：剑士找到全部存活僧侣且僧侣存活不少于 5 人";
    // Five alive, four found, the fifth found tonight: at the threshold.
    let s = state(&["僧六", "僧七", "僧八", "僧九"], &facts);
    let r = night(&g, &s, &[act(&CRUSADERS, "搜索", "僧五")]);
    assert_eq!(r.facts.get("已找到全部存活僧侣"), Some(&1.0));
    assert!(r.win.iter().any(|w| w == win), "{:?}", r.win);
    // Six alive, the sixth not found: no win.
    let s = state(&["僧七", "僧八", "僧九"], &facts);
    let r = night(&g, &s, &[act(&CRUSADERS, "搜索", "僧五")]);
    assert!(!r.facts.contains_key("已找到全部存活僧侣"));
    assert!(r.win.is_empty());
    // The unfound sixth dies tonight: five alive, all found (L103: the dead do not count).
    let r = night(
        &g,
        &s,
        &[act(&CRUSADERS, "搜索", "僧五"), team_kill("僧六")],
    );
    assert!(r.win.iter().any(|w| w == win), "{:?}", r.win);
    // Four alive, all found: one below five.
    let s = state(&["僧五", "僧六", "僧七", "僧八", "僧九"], &facts);
    let r = night(&g, &s, &[]);
    assert_eq!(r.facts.get("已找到全部存活僧侣"), Some(&1.0));
    assert!(r.win.is_empty(), "{:?}", r.win);
}

#[test]
fn church_wins_b_when_the_last_heretic_falls_and_the_child_is_out() {
    // 001 L104 "异教徒全部出局，且恶魔之子出局".
    let s = state(&["冷雪", "异一", "异二"], &[]);
    let r = night(&game(&[]), &s, &[act(&["诗人"], "感召", "异三")]);
    assert_eq!(r.win, ["教会胜（B）：异教徒与恶魔之子全部出局"]);
}

#[test]
fn heretics_win_a_when_the_last_monk_dies() {
    // 001 L108 "僧侣全部出局，且至少1名异教徒（恶魔之子）幸存".
    let s = state(&MONKS[1..], &[]);
    let r = night(&game(&[]), &s, &[team_kill("蝈蝈")]);
    assert!(r
        .win
        .iter()
        .any(|w| w == "异教徒胜（A）：僧侣全部出局且异教徒或恶魔之子尚存"));
}

#[test]
fn heretics_win_c_when_the_last_crusader_falls_with_the_bard_out() {
    // 001 L110 "十字军剑士全部出局，且吟游诗人出局".
    let s = state(&["诗人", "剑二", "剑三"], &[]);
    let r = night(&game(&[]), &s, &[act(&["领主"], "堕落", "剑一")]);
    assert!(r
        .win
        .iter()
        .any(|w| w == "异教徒胜（C）：剑士与吟游诗人全部出局"));
}

#[test]
fn heretics_win_b_when_the_crusaders_are_out_and_three_monks_dead() {
    // 001 L109 "十字军剑士全部出局，并至少3名僧侣出局": three monks out (at), two (one below).
    let win = "异教徒胜（B）：剑士全部出局且僧侣出局不少于 3 人";
    let s = state(&["剑二", "剑三", "僧七", "僧八", "僧九"], &[]);
    let r = night(&game(&[]), &s, &[act(&["领主"], "堕落", "剑一")]);
    assert!(r.win.iter().any(|w| w == win), "{:?}", r.win);
    let s = state(&["剑二", "剑三", "僧八", "僧九"], &[]);
    let r = night(&game(&[]), &s, &[act(&["领主"], "堕落", "剑一")]);
    assert!(r.win.is_empty(), "{:?}", r.win);
}

#[test]
fn church_wins_c_when_the_heretics_and_the_lord_are_out() {
    // 001 L105 "异教徒全部出局，且黑暗领主出局": the child alive.
    let s = state(&["领主", "异一", "异二"], &[]);
    let r = night(&game(&[]), &s, &[act(&["诗人"], "感召", "异三")]);
    assert_eq!(r.win, ["教会胜（C）：异教徒与黑暗领主全部出局"]);
}

#[test]
fn a_search_fact_the_judge_set_by_hand_stands_without_searches_bansha_saw() {
    let s = state(&[], &[("已找到全部存活僧侣", 1.0)]);
    let r = night(&game(&[]), &s, &[]);
    assert!(!r.facts.contains_key("已找到全部存活僧侣"));
    // Once bansha has a search, it recounts: 8 monks unfound.
    let r = night(&game(&[]), &s, &[act(&CRUSADERS, "搜索", "蝈蝈")]);
    assert_eq!(r.facts.get("已找到全部存活僧侣"), Some(&0.0));
}

#[test]
fn the_lords_fall_at_dusk_lifts_his_protection_for_the_night() {
    // 001 L86 "在2项权力全部使用过之后，可被异教徒杀害" with 特赦 spent on day 1 and 堕落 tonight:
    // before the night (A-J4 default) both are used when the heretics strike; at dawn not yet.
    let s = state(&[], &[("特赦已用", 1.0)]);
    let acts = [act(&["领主"], "堕落", "剑一"), team_kill("领主")];
    let r = night(&game(&[]), &s, &acts);
    assert_eq!(dead(&r), ["领主", "剑一"]);
    let r = night(&game(&[("dusk_powers", "at_dawn")]), &s, &acts);
    assert_eq!(dead(&r), ["剑一"]);
    assert_eq!(figure(&r, "领主"), (0, 1));
}

// ---- order, changes, bad input ------------------------------------------------------------

/// A busy night: every kind of action, a change, a conflict and bad input.
fn busy() -> Vec<Action> {
    let mut acts = prayers("蝈蝈", 3); // 僧二, 僧三, 僧四
    acts.extend([
        act(&["僧五"], "祈祷", "剑一"),
        act(&["僧六"], "祈祷", "剑一"),
        team_kill("蝈蝈"),
        act(&["冷雪"], "杀人", "剑一"),
        act(&CRUSADERS, "搜索", "僧五"),
        act(&["诗人"], "感召", "异二"),
        act(&["领主"], "堕落", "僧三"),
        at(act(&["僧九"], "祈祷", "僧二"), "2026-12-02T21:00:00+08:00"),
        at(act(&["僧九"], "祈祷", "僧四"), "2026-12-02T22:00:00+08:00"),
        act(&["僧八"], "祈祷", "僧二"),
        act(&["僧八"], "祈祷", "僧三"),
        act(&["路人"], "杀人", "僧二"),
        act(&["僧七"], "杀人", "僧二"),
    ]);
    acts
}

#[test]
fn the_resolution_does_not_depend_on_the_order_of_the_actions() {
    // 001 L94 "所有在同一夜晚使用的技能，不论玩家发送先后，均判同时生效".
    use proptest::prelude::*;
    let g = game(&[]);
    let s = state(&[], &[]);
    let reference = serde_json::to_value(night(&g, &s, &busy())).unwrap();
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    runner
        .run(&Just(busy()).prop_shuffle(), |acts| {
            let r = serde_json::to_value(night(&g, &s, &acts)).unwrap();
            prop_assert_eq!(&r, &reference);
            Ok(())
        })
        .unwrap();
    let mut reversed = busy();
    reversed.reverse();
    assert_eq!(
        serde_json::to_value(night(&g, &s, &reversed)).unwrap(),
        reference
    );
}

#[test]
fn a_busy_night_resolves_the_rest_of_the_bad_input() {
    let r = night(&game(&[]), &state(&[], &[]), &busy());
    // 异二 is 感召'd at dusk (A-J4 before_night): 9 monks ÷ 2 heretics = 4.5 → 5, so 蝈蝈's 3
    // prayers and 剑一's 2 add nothing; the heretics' 1 kills 蝈蝈, the child's 1 kills 剑一.
    assert_eq!(dead(&r), ["异二", "剑一", "蝈蝈"]);
    assert_eq!(figure(&r, "蝈蝈"), (1, 1));
    assert!(refused_reason(&r, "路人 杀人").contains("不是本局玩家"));
    assert!(refused_reason(&r, "僧七 杀人").contains("没有“杀人”能力"));
    assert!(refused_reason(&r, "僧九 祈祷 僧二").contains("取代"));
    assert!(refused_reason(&r, "僧八 祈祷 僧二").contains("互相矛盾"));
    assert!(refused_reason(&r, "僧八 祈祷 僧三").contains("互相矛盾"));
}

#[test]
fn bad_input_is_refused_with_its_reason_and_the_rest_resolved() {
    let s = state(&["僧九", "异三"], &[]);
    let acts = [
        act(&["僧九"], "祈祷", "蝈蝈"),         // dead actor
        act(&["剑一"], "祈祷", "蝈蝈"),         // power the role lacks
        act(&["冷雪"], "杀人", "张三"),         // unknown target
        act(&["剑二"], "搜索", "异三"),         // dead target
        act(&["剑三"], "毒药", "蝈蝈"),         // no such power here
        act(&["冷雪", "异一"], "杀人", "僧二"), // child and heretics together
        act(&["蝈蝈", "僧二"], "祈祷", "僧三"), // a joint prayer
        act(&["异一"], "杀人", "僧四"),         // the team's list by one heretic
        act(&["诗人"], "感召", ""),             // no target
    ];
    let r = night(&game(&[]), &s, &acts);
    assert!(refused_reason(&r, "僧九 祈祷").contains("已出局"));
    assert!(refused_reason(&r, "剑一 祈祷").contains("没有“祈祷”能力"));
    assert!(refused_reason(&r, "张三").contains("不是本局玩家"));
    assert!(refused_reason(&r, "搜索 异三").contains("已出局"));
    assert!(refused_reason(&r, "毒药").contains("不是这个版杀的夜间能力"));
    assert!(refused_reason(&r, "冷雪+异一").contains("L60"));
    assert!(refused_reason(&r, "蝈蝈+僧二").contains("每人单独提交"));
    assert!(refused_reason(&r, "感召").contains("没有写目标"));
    assert_eq!(r.refused.len(), 8);
    assert_eq!(dead(&r), ["僧四"]);
}

#[test]
fn conflicting_team_lists_are_refused_and_the_child_still_kills() {
    // 001 L63, L66 "每轮共同使用一次权力": two different lists without times.
    let acts = [
        act(&["异一"], "杀人", "僧二"),
        act(&["异二", "异三"], "杀人", "僧三"),
        act(&["冷雪"], "杀人", "僧四"),
    ];
    let r = night(&game(&[]), &state(&[], &[]), &acts);
    assert_eq!(dead(&r), ["僧四"]);
    assert_eq!(r.refused.len(), 2);
    assert!(r.refused.iter().all(|x| x.reason.contains("互相矛盾")));
    // With times, the last list counts and the earlier is listed as replaced.
    let acts = [
        at(act(&["异一"], "杀人", "僧二"), "2026-12-02T21:00:00+08:00"),
        at(act(&["异二"], "杀人", "僧三"), "2026-12-02T21:30:00+08:00"),
    ];
    let r = night(&game(&[]), &state(&[], &[]), &acts);
    assert_eq!(dead(&r), ["僧三"]);
    assert!(refused_reason(&r, "僧二").contains("取代"));
}

#[test]
fn a_dead_member_of_a_joint_action_is_noted_and_the_rest_act() {
    let s = state(&["异三"], &[]);
    let r = night(&game(&[]), &s, &[team_kill("僧二")]);
    assert_eq!(dead(&r), ["僧二"]);
    assert!(r.for_judge.iter().any(|l| l.contains("异三 已出局")));
}

#[test]
fn late_actions_are_listed_not_resolved() {
    let deadline = DateTime::parse_from_rfc3339("2026-12-02T21:00:00+08:00").ok();
    let acts = [at(team_kill("僧二"), "2026-12-02T21:01:00+08:00")];
    let r = resolve_game(&game(&[]), &state(&[], &[]), 2, &acts, deadline).unwrap();
    assert!(dead(&r).is_empty());
    assert_eq!(r.late.len(), 1);
}

// ---- readings and the preset --------------------------------------------------------------

#[test]
fn an_unknown_reading_is_an_error_naming_the_key() {
    // Refused when the game config loads, at its key and line.
    let err = match std::panic::catch_unwind(|| game(&[("crusader_armour", "magic")])) {
        Err(e) => e.downcast_ref::<String>().cloned().unwrap_or_default(),
        Ok(_) => panic!("a reading no choice knows was accepted"),
    };
    assert!(
        err.contains("rules.night.readings.crusader_armour") && err.contains("heretic_attack_once"),
        "{err}"
    );
    assert!(err.contains("line: Some("), "{err}");
}

#[test]
fn the_preset_lists_every_reading_with_its_default() {
    let r = bansha::domain::night::resolver("jiaohui").unwrap();
    let g = game(&[]);
    assert_eq!(g.rules.night.resolver.as_deref(), Some("jiaohui"));
    assert_eq!(g.rules.night.deadline_after_close_minutes, Some(720)); // 001 L196, L197
    let preset = include_str!("../config/rulesets/jiaohui.toml");
    for c in r.choices() {
        assert_eq!(
            g.rules.night.readings.get(c.key).map(String::as_str),
            Some(c.default),
            "{}",
            c.key
        );
        for (reading, _) in c.readings {
            assert!(
                preset.contains(&format!("\"{reading}\"")),
                "{}: {reading}",
                c.key
            );
        }
    }
    let ids: std::collections::BTreeSet<&str> = r.choices().iter().map(|c| c.id).collect();
    for n in 1..=10 {
        assert!(ids.contains(format!("A-J{n}").as_str()), "A-J{n}");
    }
}

/// Every quotation "001 Lnn “…”" in the choices and `Lnn "…"` in the preset's night section is
/// in the seed at that line (fragments between "…").
#[test]
fn the_quoted_seed_lines_are_the_seeds() {
    let checked = common::check_seed_quotes(
        include_str!("fixtures/seeds/001_jiaohui.txt"),
        include_str!("../config/rulesets/jiaohui.toml"),
        "[night]",
        "jiaohui",
    );
    assert!(checked >= 20, "{checked}");
}

/// 001 is silent on a night action changed (L94 only makes the night's skills simultaneous),
/// and on a change to a target who cannot be one (out, or no player): whether the earlier
/// action stands or the power is not used that night is the judge's reading (A-J10), never
/// decided silently; a change between two valid targets is the last one under both readings.
/// Found by the service simulator (tests/simd, jiaohui seed 27): the heretics changed their
/// list to a player voted out that day, and their earlier victim died without a word.
#[test]
fn a_change_to_a_target_who_cannot_be_one_is_a_reading() {
    let s = state(&["僧三"], &[]);
    let first = at(team_kill("僧二"), "2026-12-02T01:00:00+08:00");
    let to_dead = at(team_kill("僧三"), "2026-12-02T02:00:00+08:00");
    let r = night(&game(&[]), &s, &[first.clone(), to_dead.clone()]);
    assert_eq!(dead(&r), ["僧二"]);
    assert_eq!(reading(&r, "action_change"), Some("last_valid"));
    assert!(refused_reason(&r, "僧三").contains("已出局"));
    let r = night(
        &game(&[("action_change", "last_sent")]),
        &s,
        &[first.clone(), to_dead],
    );
    assert!(dead(&r).is_empty(), "{:?}", r.deaths);
    assert_eq!(reading(&r, "action_change"), Some("last_sent"));
    assert!(refused_reason(&r, "僧二").contains("不发动"));
    // A change among valid targets: the last one, whatever the reading; no reading to show.
    let to_living = at(team_kill("僧四"), "2026-12-02T02:00:00+08:00");
    for g in [game(&[]), game(&[("action_change", "last_sent")])] {
        let r = night(&g, &s, &[first.clone(), to_living.clone()]);
        assert_eq!(dead(&r), ["僧四"]);
        assert_eq!(reading(&r, "action_change"), None);
    }
    // A monk's prayer changed to a player out: the same point, for everyone's own powers.
    let pray = |t: &str, time: &str| at(act(&["蝈蝈"], "祈祷", t), time);
    let r = night(
        &game(&[("action_change", "last_sent")]),
        &s,
        &[
            pray("僧二", "2026-12-02T01:00:00+08:00"),
            pray("僧三", "2026-12-02T03:00:00+08:00"),
        ],
    );
    assert_eq!(reading(&r, "action_change"), Some("last_sent"));
    assert!(refused_reason(&r, "蝈蝈 祈祷 僧二").contains("不发动"));
}
