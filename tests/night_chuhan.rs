//! chuhan (楚汉, seed 000 §2.4–2.9): the night, rule by rule, through
//! `bansha::domain::night::resolve_game` on a 32-player game (tests/fixtures/night/chuhan/
//! game.toml: 楚炮1 is a 楚 炮), and through the real `bansha night` binary. Each case cites its
//! seed line ("000 L68" = line 68 of tests/fixtures/seeds/000_chuhan.txt).

mod common;

use assert_cmd::Command;
use bansha::domain::config::GameConfig;
use bansha::domain::night::{resolve_game, Action, Resolution};
use bansha::domain::rules::state::{Change, GameState};
use chrono::DateTime;
use std::path::Path;

const GAME: &str = include_str!("fixtures/night/chuhan/game.toml");

fn game_with(readings: &[(&str, &str)]) -> GameConfig {
    let mut text = GAME.to_string();
    if !readings.is_empty() {
        text.push_str("\n[rules.night.readings]\n");
        for (k, v) in readings {
            text.push_str(&format!("{k} = \"{v}\"\n"));
        }
    }
    bansha::domain::game::load_str(&text, Path::new("game.toml")).expect("the test game loads")
}

fn game() -> GameConfig {
    game_with(&[])
}

/// The state at dusk with these players out.
fn dead(players: &[&str]) -> GameState {
    let mut s = GameState::default();
    for p in players {
        s.push(
            Change::Eliminate {
                player: p.to_string(),
                cause: "测试".into(),
                day: None,
            },
            "2026-11-30T21:00:00+08:00".into(),
        );
    }
    s
}

fn act(by: &str, power: &str, target: &str) -> Action {
    Action {
        by: vec![by.into()],
        power: power.into(),
        target: Some(target.into()),
        platform: None,
        sent_at: None,
        source: format!("{by} {power} {target}"),
    }
}

/// A 炮's kill over a platform (or a 帅's kill: platform "").
fn kill(by: &str, target: &str, platform: &str) -> Action {
    let mut a = act(by, "杀人", target);
    a.platform = (!platform.is_empty()).then(|| platform.to_string());
    a
}

/// Sent at this time of the night's morning (2026-12-01, +08:00).
fn at(mut a: Action, hm: &str) -> Action {
    a.sent_at = DateTime::parse_from_rfc3339(&format!("2026-12-01T{hm}:00+08:00")).ok();
    a.source = format!("{} @{hm}", a.source);
    a
}

fn run_with(g: &GameConfig, s: &GameState, acts: &[Action]) -> Resolution {
    resolve_game(g, s, 1, acts, None).expect("chuhan resolves")
}

fn run(acts: &[Action]) -> Resolution {
    run_with(&game(), &GameState::default(), acts)
}

fn died(r: &Resolution) -> Vec<&str> {
    let mut v: Vec<&str> = r.deaths.iter().map(|d| d.player.as_str()).collect();
    v.sort();
    v
}

fn sorted<'a>(v: &[&'a str]) -> Vec<&'a str> {
    let mut v = v.to_vec();
    v.sort();
    v
}

fn states(r: &Resolution, p: &str) -> Vec<String> {
    r.states
        .iter()
        .filter(|l| l.player == p)
        .map(|l| l.state.clone())
        .collect()
}

fn has(r: &Resolution, p: &str, state: &str) -> bool {
    states(r, p).iter().any(|s| s == state)
}

fn told(r: &Resolution, p: &str) -> Vec<String> {
    r.feedback
        .iter()
        .filter(|f| f.to == p)
        .map(|f| f.text.clone())
        .collect()
}

fn refused_reason(r: &Resolution, by: &str) -> String {
    r.refused
        .iter()
        .filter(|x| x.action.by.iter().any(|b| b == by))
        .map(|x| x.reason.clone())
        .collect::<Vec<_>>()
        .join(" / ")
}

fn reading_used(r: &Resolution, key: &str) -> Option<String> {
    r.readings_used
        .iter()
        .find(|u| u.key == key)
        .map(|u| u.reading.clone())
}

// ---------------------------------------------------------------------------------------------
// 2.6.2 炮

#[test]
fn pao_kills_over_an_enemy_platform_who_is_invulnerable() {
    // 000 L56 “炮也有杀人权…杀死一个玩家”; L57 “如果炮架子是对方成员，该成员当夜进入无敌状态”
    let r = run(&[kill("楚炮1", "汉兵1", "汉兵2")]);
    assert_eq!(died(&r), sorted(&["汉兵1"]));
    assert!(has(&r, "汉兵2", "无敌"));
    assert!(r.deaths[0].cause.contains("楚炮1"));
}

#[test]
fn an_enemy_platform_cannot_be_killed_that_night() {
    // 000 L23 “处于无敌状态的玩家，将不受任何负面特权（被杀…）影响”; L24 (1)
    let r = run(&[kill("楚炮1", "汉兵1", "汉兵2"), kill("楚帅", "汉兵2", "")]);
    assert_eq!(died(&r), sorted(&["汉兵1"]));
}

#[test]
fn pao_without_a_valid_platform_gives_up_the_kill() {
    // 000 L58 “炮不能选双方老帅作炮架子，也不能选自己要杀的人做炮架子。炮杀人时没有选炮架子或
    // 选择了无效的炮架子，视为放弃当夜的杀人权”
    for (platform, why) in [
        ("", "没有选炮架子"),
        ("汉帅", "老帅"),
        ("楚帅", "老帅"),
        ("汉兵1", "自己要杀的"),
        ("路人甲", "不是本局玩家"),
    ] {
        let r = run(&[kill("楚炮1", "汉兵1", platform)]);
        assert!(r.deaths.is_empty(), "{platform}");
        let reason = refused_reason(&r, "楚炮1");
        assert!(
            reason.contains(why) && reason.contains("L58"),
            "{platform}: {reason}"
        );
    }
    // L57 “必须指定一个活着的玩家作炮架子”
    let r = run_with(
        &game(),
        &dead(&["汉兵2"]),
        &[kill("楚炮1", "汉兵1", "汉兵2")],
    );
    assert!(r.deaths.is_empty());
    assert!(refused_reason(&r, "楚炮1").contains("已经出局"));
}

#[test]
fn a_platform_sent_as_its_own_action_is_merged_into_the_kill() {
    // 000 L57: the 炮架子 may come in the same message or another (the actions file's
    // `power = "炮架子"`).
    let r = run(&[
        act("楚炮1", "杀人", "汉兵1"),
        act("楚炮1", "炮架子", "汉兵2"),
    ]);
    assert_eq!(died(&r), sorted(&["汉兵1"]));
    assert!(has(&r, "汉兵2", "无敌"));
    // Given in the kill and again later on its own: the later counts (L96); at one moment, the
    // two conflict.
    let r = run(&[
        at(kill("楚炮1", "汉兵1", "汉兵2"), "01:00"),
        at(act("楚炮1", "炮架子", "汉兵3"), "02:00"),
    ]);
    assert!(has(&r, "汉兵3", "无敌") && !has(&r, "汉兵2", "无敌"));
    let r = run(&[
        kill("楚炮1", "汉兵1", "汉兵2"),
        act("楚炮1", "炮架子", "汉兵3"),
    ]);
    assert!(r.deaths.is_empty());
    assert!(refused_reason(&r, "楚炮1").contains("两个不同的炮架子"));
    // Alone, it is listed, not dropped.
    let r = run(&[act("楚炮2", "炮架子", "汉兵2")]);
    assert!(refused_reason(&r, "楚炮2").contains("没有杀人对象"));
}

#[test]
fn an_own_platform_is_imprisoned_and_its_powers_are_void() {
    // 000 L57 “如果炮架子是本方成员，该成员当夜进入禁锢状态”; L29 (1); L99 “禁锢生效的话，将使
    // 被禁锢方当夜行使的所有特权无效”: the 相 platform's heal does not save.
    let r = run(&[
        kill("楚炮1", "汉兵1", "楚相1"),
        act("楚相1", "救治", "楚兵1"),
        kill("汉炮1", "楚兵1", "汉兵5"),
    ]);
    assert!(has(&r, "楚相1", "禁锢"));
    assert_eq!(died(&r), sorted(&["汉兵1", "楚兵1"]));
    assert!(!r.powers_used.iter().any(|u| u.player == "楚相1"));
}

#[test]
fn ma_hou_pao_the_own_ma_platform_is_not_imprisoned() {
    // 000 L61 “炮选择本方马作炮架子，构成马后炮，这时本方马不因为当炮架子而被禁锢”
    let r = run(&[
        kill("楚炮1", "汉兵1", "楚马1"),
        act("楚马1", "查证", "汉车1"),
    ]);
    assert!(!has(&r, "楚马1", "禁锢"));
    assert!(told(&r, "楚马1")[0].contains("汉车1 的身份是车，属汉方"));
    // … but he can still be 别马腿 or imprisoned by a 车 (L61 “但同样有可能被别马腿或被车禁锢”).
    let r = run(&[
        kill("楚炮1", "汉兵1", "楚马1"),
        act("楚马1", "查证", "汉车1"),
        act("汉车2", "禁锢", "楚马1"),
    ]);
    assert!(has(&r, "楚马1", "禁锢"));
    assert!(told(&r, "楚马1").is_empty());
}

#[test]
fn overlapping_pao_the_shooter_is_bisha_and_the_platform_pao_imprisoned() {
    // 000 L59 “一个炮选本方另一个炮作炮架子，构成重叠炮。…做炮架子的那个炮当夜进入禁锢状态，
    // 而打过去的那个炮进入必杀状态”; L34
    let r = run(&[
        kill("楚炮1", "汉兵1", "楚炮2"),
        kill("楚炮2", "汉兵3", "汉兵4"),
    ]);
    assert!(has(&r, "楚炮1", "必杀"));
    assert!(has(&r, "楚炮2", "禁锢"));
    assert_eq!(died(&r), ["汉兵1"], "the platform 炮's own kill is void");
}

#[test]
fn bisha_ignores_the_heal() {
    // 000 L39 “必杀可以无视相的保护能力”; L76 “如果炮杀人时处于必杀状态，则救治权不能对抗必杀”
    let r = run(&[
        kill("楚炮1", "汉兵1", "楚炮2"),
        act("汉相1", "救治", "汉兵1"),
    ]);
    assert_eq!(died(&r), sorted(&["汉兵1"]));
    let plain = run(&[
        kill("楚炮1", "汉兵1", "汉兵2"),
        act("汉相1", "救治", "汉兵1"),
    ]);
    assert!(plain.deaths.is_empty(), "L73: a plain kill is healed");
}

#[test]
fn bisha_cannot_break_invulnerability() {
    // 000 L39 “但是必杀不能破无敌状态”; 汉兵1 is 无敌 by two 汉 prayers (x = 2, L86).
    let r = run(&[
        kill("楚炮1", "汉兵1", "楚炮2"),
        act("汉兵2", "祈祷", "汉兵1"),
        act("汉兵3", "祈祷", "汉兵1"),
    ]);
    assert!(has(&r, "汉兵1", "无敌"));
    assert!(r.deaths.is_empty());
}

#[test]
fn bisha_is_void_when_the_shooter_is_imprisoned() {
    // 000 L37 “如果某个炮同时处于必杀状态和禁锢状态，则必杀状态无效”; L99: his kill is void too.
    let r = run(&[
        kill("楚炮1", "汉兵1", "楚炮2"),
        act("汉车1", "禁锢", "楚炮1"),
    ]);
    assert!(!has(&r, "楚炮1", "必杀"));
    assert!(has(&r, "楚炮1", "禁锢"));
    assert!(r.deaths.is_empty());
}

#[test]
fn bisha_imprisoned_and_invulnerable_keeps_bisha() {
    // 000 L38 “如果某个炮同时处于必杀、禁锢和无敌三种状态，则禁锢状态无效，无敌状态和必杀状态都有效”
    let r = run(&[
        kill("楚炮1", "汉兵1", "楚炮2"),
        act("汉车1", "禁锢", "楚炮1"),
        act("楚兵1", "祈祷", "楚炮1"),
        act("楚兵2", "祈祷", "楚炮1"),
        act("汉相1", "救治", "汉兵1"),
    ]);
    assert!(has(&r, "楚炮1", "必杀"));
    assert!(has(&r, "楚炮1", "无敌"));
    assert!(has(&r, "楚炮1", "禁锢（无效）"));
    assert_eq!(died(&r), sorted(&["汉兵1"]));
}

#[test]
fn bisha_on_a_mine_takes_the_shooter_unless_he_is_invulnerable() {
    // 000 L40 “如果必杀的目标处于兑子状态，发动必杀者自己又不是处在无敌状态，必杀者将和被杀对象
    // 同归于尽”; 汉马1 is in 兑子 as one of the 连环马 (L65).
    let r = run(&[kill("楚炮1", "汉马1", "楚炮2")]);
    assert_eq!(died(&r), sorted(&["汉马1", "楚炮1"]));
    let r = run(&[
        kill("楚炮1", "汉马1", "楚炮2"),
        act("楚兵1", "祈祷", "楚炮1"),
        act("楚兵2", "祈祷", "楚炮1"),
    ]);
    assert_eq!(died(&r), sorted(&["汉马1"]));
}

#[test]
fn two_pao_naming_each_other_the_first_sent_fires() {
    // 000 L59 “本方双炮互相选对方做炮架子的话，先寄出短消息那一方行使特权，后寄出那一方作炮架子”
    let first_1 = run(&[
        at(kill("楚炮1", "汉兵1", "楚炮2"), "01:00"),
        at(kill("楚炮2", "汉兵3", "楚炮1"), "02:00"),
    ]);
    assert_eq!(died(&first_1), sorted(&["汉兵1"]));
    assert!(has(&first_1, "楚炮1", "必杀"));
    assert!(has(&first_1, "楚炮2", "禁锢"));
    let first_2 = run(&[
        at(kill("楚炮1", "汉兵1", "楚炮2"), "03:00"),
        at(kill("楚炮2", "汉兵3", "楚炮1"), "02:00"),
    ]);
    assert_eq!(died(&first_2), sorted(&["汉兵3"]));
    assert!(has(&first_2, "楚炮2", "必杀"));
    assert!(has(&first_2, "楚炮1", "禁锢"));
    // Without times the order cannot be told: the judge is asked, nothing is guessed.
    let unknown = run(&[
        kill("楚炮1", "汉兵1", "楚炮2"),
        kill("楚炮2", "汉兵3", "楚炮1"),
    ]);
    assert!(unknown.deaths.is_empty());
    assert!(unknown
        .for_judge
        .iter()
        .any(|l| l.contains("无法从寄出时间判断先后")));
}

#[test]
fn lianhuan_pao_both_are_mines() {
    // 000 L60 “本方双炮共选一个炮架子，构成连环炮。这种情况下，两个炮都进入兑子状态”; L42
    let r = run(&[
        kill("楚炮1", "汉兵1", "汉兵5"),
        kill("楚炮2", "汉兵2", "汉兵5"),
        kill("汉炮1", "楚炮1", "汉兵4"),
    ]);
    assert!(has(&r, "楚炮1", "兑子") && has(&r, "楚炮2", "兑子"));
    assert_eq!(died(&r), sorted(&["汉炮1", "汉兵1", "汉兵2", "楚炮1"]));
}

#[test]
fn lianhuan_pao_one_imprisoned_keeps_only_the_other_out_of_the_mine() {
    // 000 L49 (5) “连环相和连环炮中，一个相或炮被禁锢，只导致另一个相或炮不能进入兑子状态；只有
    // 两个相或炮都被禁锢时，两个相或炮才都不能进入兑子状态”
    let one = run(&[
        kill("楚炮1", "汉兵1", "汉兵5"),
        kill("楚炮2", "汉兵2", "汉兵5"),
        act("汉车1", "禁锢", "楚炮1"),
    ]);
    assert!(has(&one, "楚炮1", "兑子"));
    assert!(!has(&one, "楚炮2", "兑子"));
    let both = run(&[
        kill("楚炮1", "汉兵1", "汉兵5"),
        kill("楚炮2", "汉兵2", "汉兵5"),
        act("汉车1", "禁锢", "楚炮1"),
        act("汉车2", "禁锢", "楚炮2"),
    ]);
    assert!(!has(&both, "楚炮1", "兑子") && !has(&both, "楚炮2", "兑子"));
}

// ---------------------------------------------------------------------------------------------
// 2.5.4 兑子

#[test]
fn the_shuai_is_not_taken_by_a_mine() {
    // 000 L46 “帅不受兑子状态影响，不会和处于兑子状态的玩家同归于尽”
    let r = run(&[kill("楚帅", "汉马1", "")]);
    assert_eq!(died(&r), sorted(&["汉马1"]));
}

#[test]
fn an_invulnerable_attacker_is_not_taken_by_a_mine() {
    // 000 L42 “除非攻击者同时处于无敌状态，否则夜间被杀死时一定是和攻击者同归于尽”
    let r = run(&[
        kill("楚炮1", "汉马1", "汉兵5"),
        act("楚兵1", "祈祷", "楚炮1"),
        act("楚兵2", "祈祷", "楚炮1"),
    ]);
    assert_eq!(died(&r), sorted(&["汉马1"]));
    let r = run(&[kill("楚炮1", "汉马1", "汉兵5")]);
    assert_eq!(died(&r), sorted(&["汉马1", "楚炮1"]));
    assert!(r.deaths.iter().any(|d| d.cause.contains("兑子")));
}

#[test]
fn invulnerable_and_mine_the_mine_is_void() {
    // 000 L47 “如果玩家同时处于无敌状态和兑子状态，则兑子状态无效”: 汉马1 is a platform of 楚炮1.
    let r = run(&[kill("楚炮1", "汉兵1", "汉马1")]);
    assert!(has(&r, "汉马1", "无敌"));
    assert!(!has(&r, "汉马1", "兑子"));
    assert!(has(&r, "汉马2", "兑子"));
}

#[test]
fn only_pao_ma_xiang_are_mines() {
    // 000 L45 “游戏中只有炮、马、相三种角色能进入兑子状态”; L36 “游戏中只有炮能进入必杀状态”
    let r = run(&[
        kill("楚炮1", "汉兵1", "汉兵5"),
        kill("楚炮2", "汉兵2", "汉兵5"),
        act("楚相1", "救治", "楚相2"),
    ]);
    for l in &r.states {
        if l.state == "兑子" {
            let role = l.player.trim_start_matches(['楚', '汉']);
            assert!(
                ["炮", "马", "相"].iter().any(|x| role.starts_with(x)),
                "{l:?}"
            );
        }
        if l.state == "必杀" {
            assert!(l.player.contains('炮'));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 2.6.3 马

#[test]
fn ma_check_tells_both_ma_the_role_and_faction() {
    // 000 L63 “天亮时法官将通过论坛短消息告诉双马所查证对象的身份和所属阵营”
    let r = run(&[act("汉马2", "查证", "楚相2")]);
    for m in ["汉马1", "汉马2"] {
        assert_eq!(told(&r, m), ["查证结果：楚相2 的身份是相，属楚方（L63）"]);
    }
    // Sent by both as one joint action.
    let mut joint = act("汉马1", "查证", "楚相2");
    joint.by = vec!["汉马1".into(), "汉马2".into()];
    assert_eq!(told(&run(&[joint]), "汉马1").len(), 1);
    // The pair's one action: a later check by the other 马 replaces it (L63, L96); two
    // different untimed ones conflict, and are listed as each 马 sent them.
    let r = run(&[
        at(act("汉马1", "查证", "楚相2"), "01:00"),
        at(act("汉马2", "查证", "楚车1"), "02:00"),
    ]);
    assert_eq!(
        told(&r, "汉马1"),
        ["查证结果：楚车1 的身份是车，属楚方（L63）"]
    );
    let r = run(&[act("汉马1", "查证", "楚相2"), act("汉马2", "查证", "楚车1")]);
    assert!(told(&r, "汉马1").is_empty());
    let by: Vec<Vec<String>> = r.refused.iter().map(|x| x.action.by.clone()).collect();
    assert_eq!(by, [vec!["汉马1".to_string()], vec!["汉马2".to_string()]]);
}

#[test]
fn the_pair_of_ma_is_a_mine() {
    // 000 L65 “除非双马被别马腿，否则双马天然构成连环马，处于兑子状态”; L43 (2)
    let r = run(&[]);
    for m in ["楚马1", "楚马2", "汉马1", "汉马2"] {
        assert!(has(&r, m, "兑子"), "{m}");
    }
}

#[test]
fn bie_ma_tui_imprisons_both_ma_voids_the_check_and_the_mine() {
    // 000 L64 “对方小兵选择祈祷的对象和本方马查证对象为同一人时，双马都被别马腿，进入禁锢状态”;
    // L66 “只要双马当中的一个处于禁锢状态时，两人就都不能行使查证特权”; L43, L65
    let r = run(&[act("楚马1", "查证", "汉兵1"), act("汉兵2", "祈祷", "汉兵1")]);
    assert!(has(&r, "楚马1", "禁锢") && has(&r, "楚马2", "禁锢"));
    assert!(!has(&r, "楚马1", "兑子") && !has(&r, "楚马2", "兑子"));
    assert!(told(&r, "楚马1").is_empty() && told(&r, "楚马2").is_empty());
    // A 楚 兵's prayer (own side) does not block.
    let r = run(&[act("楚马1", "查证", "汉兵1"), act("楚兵2", "祈祷", "汉兵1")]);
    assert_eq!(told(&r, "楚马1").len(), 1);
}

#[test]
fn one_ma_imprisoned_the_pair_loses_the_check_and_the_mine() {
    // 000 L66; L49 (5) “连环马中一个被禁锢，双马就都不能进入兑子状态”
    let r = run(&[act("楚马1", "查证", "汉兵1"), act("汉车1", "禁锢", "楚马2")]);
    assert!(told(&r, "楚马1").is_empty());
    assert!(!has(&r, "楚马1", "兑子") && !has(&r, "楚马2", "兑子"));
}

// ---------------------------------------------------------------------------------------------
// 2.6.4 车

#[test]
fn che_imprisons_and_the_imprisoned_powers_are_void() {
    // 000 L68 “被禁锢者当夜进入禁锢状态”; L28 “当夜不能行使任何特权”
    let r = run(&[
        act("汉车1", "禁锢", "楚相1"),
        act("楚相1", "救治", "楚兵1"),
        kill("汉炮1", "楚兵1", "汉兵5"),
        act("汉车2", "禁锢", "楚士1"),
        act("楚士1", "诅咒", "汉兵3"),
    ]);
    assert!(has(&r, "楚相1", "禁锢"));
    assert_eq!(died(&r), sorted(&["楚兵1"]));
    assert!(r.next_day.adjust.is_empty());
}

#[test]
fn the_shuai_cannot_be_imprisoned() {
    // 000 L69 “不能禁锢双方老帅”; L31 (2) “帅永远不会处于禁锢状态”
    let r = run(&[act("汉车1", "禁锢", "楚帅"), kill("楚帅", "汉兵1", "")]);
    assert!(refused_reason(&r, "汉车1").contains("L69"));
    assert_eq!(died(&r), sorted(&["汉兵1"]));
}

#[test]
fn che_and_his_own_pao_imprisoning_each_other_the_pao_is_imprisoned() {
    // 000 L70 “车给本方炮当炮架子，且车同时禁锢这个炮的时候…炮被禁锢而车不被禁锢，简单的说就是车比炮大”
    let r = run(&[
        kill("楚炮1", "汉兵1", "楚车1"),
        act("楚车1", "禁锢", "楚炮1"),
    ]);
    assert!(has(&r, "楚炮1", "禁锢"));
    assert!(!has(&r, "楚车1", "禁锢"));
    assert!(r.deaths.is_empty());
}

#[test]
fn one_way_che_platform_or_che_on_pao_imprisons_the_one_acted_on() {
    // 000 L70 “如果不是互相禁锢，而是单方向炮禁锢车或车禁锢炮，则还是被禁锢一方进入禁锢状态”
    let pao_on_che = run(&[
        kill("楚炮1", "汉兵1", "楚车1"),
        act("楚车1", "禁锢", "汉相1"),
    ]);
    assert!(has(&pao_on_che, "楚车1", "禁锢"));
    assert!(
        !has(&pao_on_che, "汉相1", "禁锢"),
        "the imprisoned 车's 禁锢 is void (L99)"
    );
    assert_eq!(died(&pao_on_che), sorted(&["汉兵1"]));
    let che_on_pao = run(&[
        act("楚车1", "禁锢", "楚炮1"),
        kill("楚炮1", "汉兵1", "汉兵2"),
    ]);
    assert!(has(&che_on_pao, "楚炮1", "禁锢"));
    assert!(che_on_pao.deaths.is_empty());
}

#[test]
fn an_imprisoned_pao_s_platform_choice_is_void() {
    // 000 L99 “禁锢生效的话，将使被禁锢方当夜行使的所有特权无效”, his 炮架子 included: the enemy
    // platform is not 无敌, the own platform not imprisoned.
    let r = run(&[
        act("汉车1", "禁锢", "楚炮1"),
        kill("楚炮1", "汉兵1", "汉兵2"),
    ]);
    assert!(!has(&r, "汉兵2", "无敌"));
    let r = run(&[
        act("汉车1", "禁锢", "楚炮1"),
        kill("楚炮1", "汉兵1", "楚相1"),
        act("楚相1", "救治", "楚兵1"),
        kill("汉炮1", "楚兵1", "汉兵5"),
    ]);
    assert!(!has(&r, "楚相1", "禁锢"));
    assert!(r.deaths.is_empty(), "楚相1's heal stands");
}

#[test]
fn two_enemy_che_imprisoning_each_other_are_both_imprisoned() {
    // 000 L71 “双方的车互相禁锢，双方都被禁锢”
    let r = run(&[act("楚车1", "禁锢", "汉车1"), act("汉车1", "禁锢", "楚车1")]);
    assert!(has(&r, "楚车1", "禁锢") && has(&r, "汉车1", "禁锢"));
}

#[test]
fn an_imprisoned_che_imprisons_nobody() {
    // 000 L99: 楚车1 imprisons 汉车1, whose own 禁锢 on 楚相1 is then void.
    let r = run(&[act("楚车1", "禁锢", "汉车1"), act("汉车1", "禁锢", "楚相1")]);
    assert!(has(&r, "汉车1", "禁锢"));
    assert!(!has(&r, "楚相1", "禁锢"));
}

// ---------------------------------------------------------------------------------------------
// 2.6.5 相

#[test]
fn xiang_heals_against_shuai_and_pao_and_it_is_not_announced() {
    // 000 L73 “如果该救治对象当夜被帅或炮所杀，不会死亡，法官天亮后也不公布谁被成功救治”
    let r = run(&[
        act("楚相1", "救治", "楚兵1"),
        kill("汉帅", "楚兵1", ""),
        kill("汉炮1", "楚兵1", "汉兵5"),
    ]);
    assert!(r.deaths.is_empty());
    assert!(r.announce.contains("当夜无人死亡"));
    assert!(!r.announce.contains("救"));
}

#[test]
fn xiang_may_heal_himself_and_the_same_player_again() {
    // 000 L98 “除了帅、炮、车、马，其他玩家可以对自己行使特权”; L74 “允许相连续两夜救治同一个玩家”
    let r = run(&[
        act("楚相1", "救治", "楚相1"),
        kill("汉炮1", "楚相1", "汉兵5"),
    ]);
    assert!(r.deaths.is_empty());
    assert!(r.refused.is_empty());
}

#[test]
fn the_shuai_cannot_be_healed() {
    // 000 L75 “不能救治双方老帅。，否则视为放弃一夜救治权”
    let r = run(&[act("楚相1", "救治", "楚帅")]);
    assert!(refused_reason(&r, "楚相1").contains("L75"));
}

#[test]
fn sai_xiang_yan_imprisons_the_xiang_and_voids_the_heal() {
    // 000 L77 “对方小兵选择祈祷的对象和一个相救治的对象相同时，该相被塞相眼。当夜进入禁锢状态”
    let r = run(&[
        act("楚相1", "救治", "楚兵1"),
        act("汉兵1", "祈祷", "楚兵1"),
        kill("汉炮1", "楚兵1", "汉兵5"),
    ]);
    assert!(has(&r, "楚相1", "禁锢"));
    assert_eq!(died(&r), sorted(&["楚兵1"]));
}

#[test]
fn lianhuan_xiang_the_healed_xiang_is_a_mine_and_plain_kills_fail() {
    // 000 L78 “一个相选择救治本方另一个相且没有被塞相眼时，构成连环相。被救治的相进入兑子状态。…
    // 连环相都不能被普通杀人权（帅、炮）杀害”
    let r = run(&[
        act("楚相1", "救治", "楚相2"),
        kill("汉炮1", "楚相2", "汉兵5"),
        kill("汉帅", "楚相2", ""),
    ]);
    assert!(has(&r, "楚相2", "兑子"));
    assert!(!has(&r, "楚相1", "兑子"));
    assert!(r.deaths.is_empty());
}

#[test]
fn lianhuan_xiang_mutual_both_are_mines() {
    // 000 L78 “两个相互相选择救治对方且都没有被塞相眼，都进入兑子状态”; L43 (3)
    let r = run(&[act("楚相1", "救治", "楚相2"), act("楚相2", "救治", "楚相1")]);
    assert!(has(&r, "楚相1", "兑子") && has(&r, "楚相2", "兑子"));
}

#[test]
fn lianhuan_xiang_falls_to_bisha_and_takes_the_shooter() {
    // 000 L78 “但是可以被必杀（重叠炮），但是必杀者也会同归于尽”
    let r = run(&[
        act("楚相1", "救治", "楚相2"),
        kill("汉炮1", "楚相2", "汉炮2"),
    ]);
    assert_eq!(died(&r), sorted(&["楚相2", "汉炮1"]));
}

#[test]
fn lianhuan_xiang_blocked_by_sai_xiang_yan_or_an_imprisoned_healer() {
    // 000 L78 “且没有被塞相眼”; L49 (5) “一个相…被禁锢，只导致另一个相…不能进入兑子状态”
    let blocked = run(&[act("楚相1", "救治", "楚相2"), act("汉兵1", "祈祷", "楚相2")]);
    assert!(!has(&blocked, "楚相2", "兑子"));
    let imprisoned = run(&[act("楚相1", "救治", "楚相2"), act("汉车1", "禁锢", "楚相1")]);
    assert!(!has(&imprisoned, "楚相2", "兑子"));
}

// ---------------------------------------------------------------------------------------------
// 2.6.6–2.6.8 士, 兵

#[test]
fn shi_curse_and_blessing_carry_into_the_next_day() {
    // 000 L80 “第二天投票结束时法官将给被诅咒的对象多计一票”; L82 “…给被庇佑的对象少计一票”
    let r = run(&[act("楚士1", "诅咒", "汉兵3"), act("汉士2", "庇佑", "汉兵4")]);
    assert_eq!(r.next_day.adjust.get("汉兵3"), Some(&1));
    assert_eq!(r.next_day.adjust.get("汉兵4"), Some(&-1));
    // L98: a 士 may act on himself.
    let r = run(&[act("汉士2", "庇佑", "汉士2")]);
    assert_eq!(r.next_day.adjust.get("汉士2"), Some(&-1));
}

#[test]
fn an_invulnerable_player_is_not_cursed() {
    // 000 L23 “处于无敌状态的玩家，将不受任何负面特权（被杀、被禁锢、被诅咒）影响”
    let r = run(&[
        act("楚士1", "诅咒", "汉兵2"),
        kill("楚炮1", "汉兵1", "汉兵2"),
    ]);
    assert!(r.next_day.adjust.is_empty());
}

#[test]
fn prayers_x_is_the_ceiling_of_own_over_enemy_bing_at_least_two() {
    // 000 L85 “如果某个玩家得到了x个本方小兵的祈祷，当夜进入无敌状态”; L86 “x=当夜活着的本方小兵
    // 人数/当夜活着的对方小兵人数，小数位进一取值，且x最小等于2”
    // 5 against 5: x = 2.
    let two = run(&[act("楚兵1", "祈祷", "楚车1"), act("楚兵2", "祈祷", "楚车1")]);
    assert!(has(&two, "楚车1", "无敌"));
    let one = run(&[act("楚兵1", "祈祷", "楚车1")]);
    assert!(!has(&one, "楚车1", "无敌"));
    // 5 against 2: x = ⌈2.5⌉ = 3.
    let s = dead(&["汉兵3", "汉兵4", "汉兵5"]);
    let g = game();
    let r = run_with(
        &g,
        &s,
        &[act("楚兵1", "祈祷", "楚车1"), act("楚兵2", "祈祷", "楚车1")],
    );
    assert!(!has(&r, "楚车1", "无敌"));
    let r = run_with(
        &g,
        &s,
        &[
            act("楚兵1", "祈祷", "楚车1"),
            act("楚兵2", "祈祷", "楚车1"),
            act("楚兵3", "祈祷", "楚车1"),
        ],
    );
    assert!(has(&r, "楚车1", "无敌"));
    // Enemy 兵's prayers do not count (“本方小兵”).
    let r = run(&[act("汉兵1", "祈祷", "楚车1"), act("汉兵2", "祈祷", "楚车1")]);
    assert!(!has(&r, "楚车1", "无敌"));
}

#[test]
fn the_shuai_cannot_be_prayed_for_nor_be_invulnerable() {
    // 000 L87 “不能祈祷双方老帅”; L26 “帅永远不会处于无敌状态”
    let r = run(&[act("楚兵1", "祈祷", "楚帅"), act("楚兵2", "祈祷", "楚帅")]);
    assert!(refused_reason(&r, "楚兵1").contains("L87"));
    assert!(!has(&r, "楚帅", "无敌"));
}

#[test]
fn an_imprisoned_bing_prayer_does_not_count() {
    // 000 L99, and the brief's “including his prayer”: 楚兵1 imprisoned, one prayer short of x = 2.
    let r = run(&[
        act("楚兵1", "祈祷", "楚车1"),
        act("楚兵2", "祈祷", "楚车1"),
        act("汉车1", "禁锢", "楚兵1"),
    ]);
    assert!(!has(&r, "楚车1", "无敌"));
}

#[test]
fn invulnerability_voids_imprisonment() {
    // 000 L31 (1) “如果某个玩家同时处于无敌状态和禁锢状态，则禁锢状态无效”
    let r = run(&[
        act("汉车1", "禁锢", "楚相1"),
        act("楚兵1", "祈祷", "楚相1"),
        act("楚兵2", "祈祷", "楚相1"),
        act("楚相1", "救治", "楚兵3"),
        kill("汉炮1", "楚兵3", "汉兵5"),
    ]);
    assert!(has(&r, "楚相1", "无敌") && has(&r, "楚相1", "禁锢（无效）"));
    assert!(r.deaths.is_empty(), "the heal stands");
}

// ---------------------------------------------------------------------------------------------
// 2.6.9 特例

#[test]
fn special_case_his_power_imprisons_who_made_him_invulnerable() {
    // 000 L90–L95: 甲 (汉车1) imprisons 乙 (楚车1); 丙 (汉炮1) makes 乙 无敌 as his platform; 乙
    // imprisons 丙. “这一夜应该判他的特权行使有效，丙当夜被禁锢，并且当夜他不能进入无敌状态，也不能
    // 进入禁锢状态”.
    let r = run(&[
        act("汉车1", "禁锢", "楚车1"),
        kill("汉炮1", "楚兵1", "楚车1"),
        act("楚车1", "禁锢", "汉炮1"),
    ]);
    assert!(has(&r, "汉炮1", "禁锢"));
    assert!(!has(&r, "楚车1", "无敌"));
    assert!(!has(&r, "楚车1", "禁锢"));
    assert!(has(&r, "楚车1", "无（特例）"));
    assert!(r.deaths.is_empty(), "丙's kill is void");
    // The same with prayers: 乙 (楚炮1) is 无敌 by 楚兵1 and 楚兵2 and imprisoned by 汉车1; his own
    // 炮架子 imprisons 楚兵1, one of those praying for him: his kill stands, 楚兵1 is imprisoned.
    let r = run(&[
        act("汉车1", "禁锢", "楚炮1"),
        act("楚兵1", "祈祷", "楚炮1"),
        act("楚兵2", "祈祷", "楚炮1"),
        kill("楚炮1", "汉兵1", "楚兵1"),
    ]);
    assert!(has(&r, "楚炮1", "无（特例）"), "{:?}", r.states);
    assert!(has(&r, "楚兵1", "禁锢"));
    assert_eq!(died(&r), sorted(&["汉兵1"]));
}

// ---------------------------------------------------------------------------------------------
// 2.4 the 帅, 抽将

#[test]
fn a_kill_on_the_shuai_before_his_conditions_is_wasted_silently() {
    // 000 L17 “如果未满足杀帅条件，即便杀帅…老帅也不会死；视为浪费一次杀人权…法官不公布老帅不死的原因”
    let r = run(&[kill("楚炮1", "汉帅", "汉兵2")]);
    assert!(r.deaths.is_empty());
    assert!(r.for_judge.iter().any(|l| l.contains("杀帅条件未满足")));
    assert!(r.announce.contains("当夜无人死亡"));
    assert!(!r.announce.contains("杀帅"));
}

#[test]
fn the_shuai_dies_once_his_bing_are_all_dead_and_the_game_is_won() {
    // 000 L17 “对方小兵全灭或士相全灭，才能杀死…对方的帅”; L8 “率先杀死…对方老帅的一方获胜”
    let s = dead(&["汉兵1", "汉兵2", "汉兵3", "汉兵4", "汉兵5"]);
    let r = run_with(&game(), &s, &[kill("楚炮1", "汉帅", "汉车1")]);
    assert_eq!(died(&r), sorted(&["汉帅"]));
    assert_eq!(r.win, ["楚胜：汉帅死亡"]);
    let s = dead(&["汉士1", "汉士2", "汉相1", "汉相2"]);
    let r = run_with(&game(), &s, &[kill("楚帅", "汉帅", "")]);
    assert_eq!(died(&r), sorted(&["汉帅"]));
}

#[test]
fn both_shuai_dying_together_is_a_draw() {
    // 000 L19 “双方老帅同时死亡，判和棋”; L99 (simultaneous)
    let s = dead(&[
        "汉兵1", "汉兵2", "汉兵3", "汉兵4", "汉兵5", "楚兵1", "楚兵2", "楚兵3", "楚兵4", "楚兵5",
    ]);
    let r = run_with(
        &game(),
        &s,
        &[kill("楚帅", "汉帅", ""), kill("汉帅", "楚帅", "")],
    );
    assert_eq!(died(&r), sorted(&["楚帅", "汉帅"]));
    assert_eq!(r.win, ["和棋：双方老帅同时死亡"]);
}

#[test]
fn chou_jiang_an_own_player_dies_for_the_shuai() {
    // 000 L53 “如果当天已经满足了杀帅…的条件，而且帅也确实被成功杀死…则当天帅不死，本方被抓来抽将
    // 的这个人被抽杀”
    let s = dead(&["汉兵1", "汉兵2", "汉兵3", "汉兵4", "汉兵5"]);
    let r = run_with(
        &game(),
        &s,
        &[kill("楚炮1", "汉帅", "汉车1"), act("汉帅", "抽将", "汉车2")],
    );
    assert_eq!(died(&r), sorted(&["汉车2"]));
    assert!(r.deaths[0].cause.contains("抽将"));
    assert!(r.win.is_empty());
    assert_eq!(r.facts.get("used:汉帅:抽将"), Some(&1.0));
}

#[test]
fn chou_jiang_of_an_enemy_is_void_and_the_shuai_dies() {
    // 000 L54 “如果帅误抓了对方成员，抽将无效，还是帅死”
    let s = dead(&["汉兵1", "汉兵2", "汉兵3", "汉兵4", "汉兵5"]);
    let r = run_with(
        &game(),
        &s,
        &[kill("楚炮1", "汉帅", "汉车1"), act("汉帅", "抽将", "楚车2")],
    );
    assert_eq!(died(&r), sorted(&["汉帅"]));
}

#[test]
fn chou_jiang_unused_is_wasted_silently_and_twice_is_the_limit() {
    // 000 L54 “如果帅本轮并没有被杀或被投，浪费一次抽将权，法官不公开宣布”; L53 “两次抽将权”
    let r = run(&[act("汉帅", "抽将", "汉车2")]);
    assert!(r.deaths.is_empty());
    assert_eq!(r.facts.get("used:汉帅:抽将"), Some(&1.0));
    assert!(r.for_judge.iter().any(|l| l.contains("浪费一次抽将权")));
    assert!(!r.announce.contains("抽将"));
    let mut s = GameState::default();
    s.push(
        Change::Fact {
            key: "used:汉帅:抽将".into(),
            value: 2.0,
        },
        "2026-11-30T21:00:00+08:00".into(),
    );
    let r = run_with(&game(), &s, &[act("汉帅", "抽将", "汉车2")]);
    assert!(refused_reason(&r, "汉帅").contains("用完"));
}

// ---------------------------------------------------------------------------------------------
// 2.7 the exercise of powers

#[test]
fn all_powers_take_effect_together_at_dawn() {
    // 000 L99 “所有特权不分寄出短消息的先后，视为天亮时同时生效”: two 炮 killing each other both die.
    let r = run(&[
        kill("楚炮1", "汉炮1", "汉兵5"),
        kill("汉炮1", "楚炮1", "楚兵5"),
    ]);
    assert_eq!(died(&r), sorted(&["汉炮1", "楚炮1"]));
}

#[test]
fn the_last_change_before_the_deadline_counts_later_ones_are_late() {
    // 000 L96 “截至天亮之前10分钟，玩家都可以更换行使特权的对象”
    let g = game();
    let deadline = DateTime::parse_from_rfc3339("2026-12-01T08:50:00+08:00").ok();
    let acts = [
        at(kill("楚炮1", "汉兵1", "汉兵5"), "01:00"),
        at(kill("楚炮1", "汉兵2", "汉兵5"), "08:00"),
        at(kill("楚炮1", "汉兵3", "汉兵5"), "08:51"),
    ];
    let r = resolve_game(&g, &GameState::default(), 1, &acts, deadline).unwrap();
    assert_eq!(died(&r), sorted(&["汉兵2"]));
    assert_eq!(r.late.len(), 1);
    assert_eq!(r.late[0].target.as_deref(), Some("汉兵3"));
}

#[test]
fn ju_pao_che_ma_cannot_act_on_themselves() {
    // 000 L98 “除了帅、炮、车、马，其他玩家可以对自己行使特权”
    let r = run(&[
        act("楚车1", "禁锢", "楚车1"),
        act("楚马1", "查证", "楚马1"),
        act("楚帅", "抽将", "楚帅"),
        act("楚兵1", "祈祷", "楚兵1"),
    ]);
    for p in ["楚车1", "楚马1", "楚帅"] {
        assert!(refused_reason(&r, p).contains("L98"), "{p}");
    }
    assert!(refused_reason(&r, "楚兵1").is_empty());
}

// ---------------------------------------------------------------------------------------------
// 2.9 the dawn post

#[test]
fn the_dawn_names_the_dead_with_their_faction_and_the_successful_kill_posts_only() {
    // 000 L102 “只在天亮时公布当夜谁死了和导致他死亡的杀人帖，并公布死者的阵营”; L101 “如果杀人未
    // 成功，则不公布杀人帖”; L102 “不公布各人的夜间状态和行使特权的过程”
    let r = run(&[
        kill("楚炮1", "汉兵1", "汉兵5"),
        kill("楚炮2", "汉兵2", "汉兵4"),
        act("汉相1", "救治", "汉兵2"),
        act("汉车1", "禁锢", "楚相1"),
    ]);
    assert_eq!(died(&r), sorted(&["汉兵1"]));
    assert!(r.announce.contains("汉兵1（汉方）死亡"));
    assert!(r.announce.contains("楚炮1 的杀人帖"));
    assert!(!r.announce.contains("楚炮2"), "{}", r.announce);
    for word in ["无敌", "禁锢", "救治", "兑子", "必杀", "炮架子", "身份"] {
        assert!(!r.announce.contains(word), "{word}: {}", r.announce);
    }
    // L13: the dead's role goes to his side's 帅 by private message.
    assert_eq!(
        told(&r, "汉帅"),
        ["本方阵亡的 汉兵1 的身份：兵（L13, L102）"]
    );
}

#[test]
fn nobody_died_is_said() {
    // 000 L102 “或者公布当夜无人死亡”
    let r = run(&[]);
    assert!(r.announce.contains("当夜无人死亡"));
}

// ---------------------------------------------------------------------------------------------
// Order: the resolution does not depend on the order of the actions (L99), except L59.

fn busy_night() -> Vec<Action> {
    vec![
        kill("楚炮1", "汉兵1", "楚炮2"),
        kill("楚炮2", "汉兵3", "汉兵4"),
        kill("汉炮1", "楚马1", "汉兵5"),
        kill("汉炮2", "楚兵2", "汉兵5"),
        kill("楚帅", "汉相1", ""),
        act("汉相1", "救治", "汉相2"),
        act("汉相2", "救治", "汉相1"),
        act("楚相1", "救治", "楚兵2"),
        act("汉兵1", "祈祷", "楚兵2"),
        act("汉车1", "禁锢", "楚车1"),
        act("楚车1", "禁锢", "汉车1"),
        act("楚车2", "禁锢", "汉士1"),
        act("汉士1", "诅咒", "楚士2"),
        act("楚士2", "庇佑", "楚士2"),
        act("楚马1", "查证", "汉炮2"),
        act("汉马1", "查证", "楚炮1"),
        act("楚兵3", "祈祷", "楚相2"),
        act("楚兵4", "祈祷", "楚相2"),
        act("楚兵5", "禁锢", "汉兵1"),
        act("汉帅", "抽将", "汉车2"),
        at(act("楚士1", "诅咒", "汉兵3"), "01:00"),
        at(act("楚士1", "诅咒", "汉兵4"), "02:00"),
    ]
}

#[test]
fn the_order_of_the_actions_does_not_matter() {
    // 000 L99 “所有特权不分寄出短消息的先后，视为天亮时同时生效”
    let base = run(&busy_night());
    assert!(!base.deaths.is_empty() && !base.states.is_empty());
    // Fisher–Yates with a fixed linear congruential generator: 40 orders, the same each run.
    let mut seed: u64 = 31;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    let mut reversed = busy_night();
    reversed.reverse();
    assert_eq!(run(&reversed), base);
    for _ in 0..40 {
        let mut acts = busy_night();
        for i in (1..acts.len()).rev() {
            acts.swap(i, next(i + 1));
        }
        assert_eq!(run(&acts), base);
    }
}

// ---------------------------------------------------------------------------------------------
// The readings of NIGHT_AMBIGUITIES A-C1 … A-C11

#[test]
fn reading_a_c1_che_imprisoning_his_own_side() {
    // 000 L29 “当夜被对方的车禁锢” vs L68; L70 allows his own 炮 either way.
    let acts = [act("楚车1", "禁锢", "楚相1")];
    let r = run(&acts);
    assert!(has(&r, "楚相1", "禁锢"));
    assert_eq!(
        reading_used(&r, "imprison_own_side").as_deref(),
        Some("takes_effect")
    );
    let g = game_with(&[("imprison_own_side", "no_effect")]);
    let r = run_with(&g, &GameState::default(), &acts);
    assert!(!has(&r, "楚相1", "禁锢"));
    assert!(refused_reason(&r, "楚车1").contains("L29"));
    let r = run_with(&g, &GameState::default(), &[act("楚车1", "禁锢", "楚炮1")]);
    assert!(has(&r, "楚炮1", "禁锢"), "L70: his own 炮 in any case");
}

#[test]
fn reading_a_c2_healed_mine() {
    // 000 L42 “夜间被杀死时一定是和攻击者同归于尽”: 楚炮1 and 楚炮2 are 连环炮, 楚相1 heals 楚炮1.
    let acts = [
        kill("楚炮1", "汉兵1", "汉兵5"),
        kill("楚炮2", "汉兵2", "汉兵5"),
        act("楚相1", "救治", "楚炮1"),
        kill("汉炮1", "楚炮1", "汉兵4"),
    ];
    let r = run(&acts);
    assert_eq!(died(&r), sorted(&["汉兵1", "汉兵2"]));
    assert_eq!(
        reading_used(&r, "heal_saved_mine").as_deref(),
        Some("attacker_lives")
    );
    let g = game_with(&[("heal_saved_mine", "attacker_dies")]);
    let r = run_with(&g, &GameState::default(), &acts);
    assert_eq!(died(&r), sorted(&["汉炮1", "汉兵1", "汉兵2"]));
}

#[test]
fn reading_a_c3_prayer_of_an_imprisoned_bing() {
    // 000 L64 “对方小兵选择祈祷的对象…” vs L99: 汉兵2 is imprisoned by 楚车1.
    let acts = [
        act("楚马1", "查证", "汉兵1"),
        act("汉兵2", "祈祷", "汉兵1"),
        act("楚车1", "禁锢", "汉兵2"),
    ];
    let r = run(&acts);
    assert!(has(&r, "楚马1", "禁锢"));
    assert_eq!(
        reading_used(&r, "void_prayer_blocks").as_deref(),
        Some("choice_blocks")
    );
    let g = game_with(&[("void_prayer_blocks", "void_blocks_nothing")]);
    let r = run_with(&g, &GameState::default(), &acts);
    assert!(!has(&r, "楚马1", "禁锢"));
    assert_eq!(told(&r, "楚马1").len(), 1);
}

#[test]
fn reading_a_c4_lone_ma() {
    // 000 L43, L65 “双马天然构成连环马”
    let s = dead(&["汉马2"]);
    let r = run_with(&game(), &s, &[]);
    assert!(!has(&r, "汉马1", "兑子"));
    assert_eq!(reading_used(&r, "lone_ma_mine").as_deref(), Some("no_pair"));
    let r = run_with(&game_with(&[("lone_ma_mine", "still_mine")]), &s, &[]);
    assert!(has(&r, "汉马1", "兑子"));
}

#[test]
fn reading_a_c5_invulnerable_ma_blocked() {
    // 000 L31 (1), L65 “除非双马被别马腿”: both 马 别马腿, both 无敌 (platforms of 汉炮1, 汉炮2).
    let acts = [
        act("楚马1", "查证", "汉兵1"),
        act("汉兵2", "祈祷", "汉兵1"),
        kill("汉炮1", "楚兵1", "楚马1"),
        kill("汉炮2", "楚兵2", "楚马2"),
    ];
    let r = run(&acts);
    assert_eq!(
        reading_used(&r, "ma_invulnerable_blocked").as_deref(),
        Some("pair_blocked")
    );
    assert_eq!(
        told(&r, "楚马1").len(),
        1,
        "L66: no 禁锢 holds, the check stands"
    );
    let g = game_with(&[("ma_invulnerable_blocked", "effective_only")]);
    let r = run_with(&g, &GameState::default(), &acts);
    assert_eq!(
        reading_used(&r, "ma_invulnerable_blocked").as_deref(),
        Some("effective_only")
    );
}

#[test]
fn reading_a_c6_chou_jiang_scope_and_kill_post() {
    // 000 L53, L54 “本轮”; L101
    let r = run(&[act("汉帅", "抽将", "汉车2")]);
    assert_eq!(
        reading_used(&r, "chou_jiang_scope").as_deref(),
        Some("this_night")
    );
    let g = game_with(&[("chou_jiang_scope", "night_and_next_day")]);
    let r = run_with(&g, &GameState::default(), &[act("汉帅", "抽将", "汉车2")]);
    assert!(r.for_judge.iter().any(|l| l.contains("明天的投票")));
    let s = dead(&["汉兵1", "汉兵2", "汉兵3", "汉兵4", "汉兵5"]);
    let acts = [kill("楚炮1", "汉帅", "汉车1"), act("汉帅", "抽将", "汉车2")];
    let r = run_with(&game(), &s, &acts);
    assert!(r.announce.contains("楚炮1 的杀人帖"));
    let g = game_with(&[("chou_jiang_kill_post", "withhold")]);
    let r = run_with(&g, &s, &acts);
    assert!(!r.announce.contains("楚炮1"));
    assert!(r.announce.contains("汉车2（汉方）死亡"));
}

#[test]
fn reading_a_c7_x_when_the_enemy_has_no_bing() {
    // 000 L86 (a division by zero)
    let s = dead(&["汉兵1", "汉兵2", "汉兵3", "汉兵4", "汉兵5"]);
    let acts = [act("楚兵1", "祈祷", "楚车1"), act("楚兵2", "祈祷", "楚车1")];
    let r = run_with(&game(), &s, &acts);
    assert!(!has(&r, "楚车1", "无敌"));
    assert_eq!(
        reading_used(&r, "prayer_x_no_enemy_bing").as_deref(),
        Some("unreachable")
    );
    let r = run_with(&game_with(&[("prayer_x_no_enemy_bing", "two")]), &s, &acts);
    assert!(has(&r, "楚车1", "无敌"));
    let r = run_with(
        &game_with(&[("prayer_x_no_enemy_bing", "own_count")]),
        &s,
        &acts,
    );
    assert!(!has(&r, "楚车1", "无敌"), "x = 5");
}

#[test]
fn reading_a_c8_several_attackers_on_a_mine() {
    // 000 L42 “和攻击者同归于尽”
    let acts = [
        kill("楚炮1", "汉马1", "汉兵5"),
        kill("楚炮2", "汉马1", "汉兵4"),
    ];
    let r = run(&acts);
    assert_eq!(died(&r), sorted(&["汉马1", "楚炮1", "楚炮2"]));
    assert_eq!(
        reading_used(&r, "several_attackers_mine").as_deref(),
        Some("every_attacker")
    );
    let g = game_with(&[("several_attackers_mine", "judge_decides")]);
    let r = run_with(&g, &GameState::default(), &acts);
    assert_eq!(died(&r), sorted(&["汉马1"]));
    assert!(r.for_judge.iter().any(|l| l.contains("由法官决定")));
}

#[test]
fn reading_a_c9_shi_xiang_all_dead() {
    // 000 L17 “士相全灭”: every 汉士 dead, the 汉相 alive.
    let s = dead(&["汉士1", "汉士2"]);
    let acts = [kill("楚帅", "汉帅", "")];
    let r = run_with(&game(), &s, &acts);
    assert!(r.deaths.is_empty());
    assert_eq!(
        reading_used(&r, "shi_xiang_all_dead").as_deref(),
        Some("shi_and_xiang")
    );
    let r = run_with(
        &game_with(&[("shi_xiang_all_dead", "shi_or_xiang")]),
        &s,
        &acts,
    );
    assert_eq!(died(&r), sorted(&["汉帅"]));
}

#[test]
fn reading_a_c10_sent_exactly_at_the_deadline() {
    // 000 L96 “截至天亮之前10分钟”
    let deadline = DateTime::parse_from_rfc3339("2026-12-01T08:50:00+08:00").ok();
    let acts = [at(kill("楚炮1", "汉兵1", "汉兵5"), "08:50")];
    let r = resolve_game(&game(), &GameState::default(), 1, &acts, deadline).unwrap();
    assert_eq!(died(&r), sorted(&["汉兵1"]));
    assert_eq!(
        reading_used(&r, "deadline_boundary").as_deref(),
        Some("in_time")
    );
    let g = game_with(&[("deadline_boundary", "late")]);
    let r = resolve_game(&g, &GameState::default(), 1, &acts, deadline).unwrap();
    assert!(r.deaths.is_empty());
    assert_eq!(r.late.len(), 1);
}

#[test]
fn reading_a_c11_check_result_for_a_ma_dying_that_night() {
    // 000 L63 “天亮时…告诉双马”; 汉马1 dies (with the shooter: 兑子).
    let acts = [
        act("汉马1", "查证", "楚车1"),
        kill("楚炮1", "汉马1", "汉兵5"),
    ];
    let r = run(&acts);
    assert_eq!(told(&r, "汉马1").len(), 1);
    assert_eq!(
        reading_used(&r, "check_result_dead_ma").as_deref(),
        Some("told")
    );
    let r = run_with(
        &game_with(&[("check_result_dead_ma", "not_told")]),
        &GameState::default(),
        &acts,
    );
    assert!(told(&r, "汉马1").is_empty());
    assert_eq!(told(&r, "汉马2").len(), 1);
}

#[test]
fn an_unknown_reading_or_resolver_is_a_config_error_at_its_key() {
    let mut text = GAME.to_string();
    text.push_str("\n[rules.night.readings]\nimprison_own_side = \"maybe\"\n");
    let e = bansha::domain::game::load_str(&text, Path::new("game.toml")).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("imprison_own_side") && msg.contains("takes_effect"),
        "{msg}"
    );
    assert!(e.line.is_some());
    let mut text = GAME.to_string();
    text.push_str("\n[rules.night.readings]\nno_such_point = \"x\"\n");
    let msg = bansha::domain::game::load_str(&text, Path::new("game.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("no_such_point") && msg.contains("没有这个选项"),
        "{msg}"
    );
    let mut text = GAME.to_string();
    text.push_str("\n[rules.night]\nresolver = \"xiangqi\"\n");
    let msg = bansha::domain::game::load_str(&text, Path::new("game.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("xiangqi") && msg.contains("rules.night.resolver"),
        "{msg}"
    );
}

// ---------------------------------------------------------------------------------------------
// Bad input: listed with the reason, the rest resolved, nothing panics.

#[test]
fn bad_actions_are_refused_with_reasons_and_the_rest_resolved() {
    let s = dead(&["楚炮2"]);
    let mut joint_kill = kill("楚炮1", "汉兵2", "汉兵3");
    joint_kill.by = vec!["楚炮1".into(), "楚车1".into()];
    let mut no_target = act("楚车2", "禁锢", "");
    no_target.target = None;
    let acts = [
        kill("楚炮2", "汉兵1", "汉兵5"), // dead actor
        act("楚兵1", "杀人", "汉兵1"),   // power the role lacks
        act("路人甲", "祈祷", "楚兵1"),  // not a player
        act("楚相1", "救治", "路人乙"),  // target not a player
        act("楚士1", "偷窃", "汉兵1"),   // no such power
        act("楚士2", "诅咒", "汉兵1"),   // curse and bless: conflicting
        act("楚士2", "庇佑", "楚兵1"),
        act("楚兵3", "祈祷", "楚兵1"), // two untimed prayers: conflicting
        act("楚兵3", "祈祷", "楚兵2"),
        act("汉车1", "禁锢", "楚炮2"), // target dead
        joint_kill,
        no_target,
        kill("汉炮1", "楚兵4", "汉兵5"), // fine
    ];
    let r = run_with(&game(), &s, &acts);
    assert_eq!(died(&r), sorted(&["楚兵4"]));
    let reasons = |p: &str| refused_reason(&r, p);
    assert!(reasons("楚炮2").contains("已经出局"));
    assert!(reasons("楚兵1").contains("没有「杀人」权"));
    assert!(reasons("路人甲").contains("不是本局玩家"));
    assert!(reasons("楚相1").contains("对象 路人乙 不是本局玩家"));
    assert!(reasons("楚士1").contains("不是楚汉的特权"));
    assert!(reasons("楚士2").contains("冲突"));
    assert!(reasons("楚兵3").contains("无法判断哪条是最后的"));
    assert!(reasons("汉车1").contains("对象 楚炮2 已经出局"));
    assert!(reasons("楚车1").contains("不是共同行使"));
    assert!(reasons("楚车2").contains("没有写对象"));
    assert_eq!(r.refused.len(), 12);
}

#[test]
fn a_game_without_a_night_resolver_is_told_so() {
    let text = GAME.replace("ruleset = \"chuhan\"", "ruleset = \"qipan\"");
    if let Ok(g) = bansha::domain::game::load_str(&text, Path::new("game.toml")) {
        if g.rules.night.resolver.is_none() {
            let e = resolve_game(&g, &GameState::default(), 1, &[], None).unwrap_err();
            assert!(e.contains("没有设夜晚结算"), "{e}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The real `bansha night` binary.

fn fixture_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in ["game.toml", "actions.toml"] {
        std::fs::copy(
            Path::new("tests/fixtures/night/chuhan").join(f),
            dir.path().join(f),
        )
        .unwrap();
    }
    dir
}

fn night_cmd(dir: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("bansha")
        .unwrap()
        .current_dir(dir)
        .args(["night", "--config", "game.toml", "--night", "1"])
        .args(extra)
        .assert()
}

#[test]
fn cli_prints_the_night_in_chinese() {
    // 000 L56 (the kill), L57 (the platform 无敌), L63 (the check), L80/L82 (curse, blessing).
    let dir = fixture_dir();
    let out = night_cmd(
        dir.path(),
        &["--deadline", "2026-12-01 08:50", "actions.toml"],
    )
    .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    for want in [
        "第1夜结算",
        "汉兵1：被炮 楚炮1 杀死",
        "汉兵2：无敌",
        "→ 楚马1：查证结果：汉炮1 的身份是炮，属汉方",
        "汉兵3：+1 票（只计入第一轮投票）",
        "汉兵4：−1 票",
        "没有「禁锢」权",
        "【迟到的行动",
        "汉炮2 杀人 楚兵5",
        "[b]第1夜 天亮[/b]",
        "汉兵1（汉方）死亡。",
    ] {
        assert!(text.contains(want), "{want}\n{text}");
    }
}

#[test]
fn cli_json_has_the_resolution_keys() {
    let dir = fixture_dir();
    let out = night_cmd(
        dir.path(),
        &["--json", "--deadline", "2026-12-01 08:50", "actions.toml"],
    )
    .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    for key in [
        "night",
        "deaths",
        "states",
        "figures",
        "feedback",
        "next_day",
        "powers_used",
        "facts",
        "announce",
        "win",
        "readings_used",
        "refused",
        "late",
        "for_judge",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
    assert_eq!(v["deaths"][0]["player"], "汉兵1");
    assert_eq!(v["next_day"]["adjust"]["汉兵3"], 1);
    assert_eq!(v["late"][0]["power"], "杀人");
}

#[test]
fn cli_reads_the_state_file_and_pastes_a_kill_post() {
    // 000 L100 “法官将在公布夜间遇害者的同时公布杀人帖”
    let dir = fixture_dir();
    std::fs::write(dir.path().join("kill.txt"), "月黑风高，楚炮一声……").unwrap();
    // The state file beside the game: 汉兵3 is already out, so the curse on him is refused.
    Command::cargo_bin("bansha")
        .unwrap()
        .current_dir(dir.path())
        .args([
            "change",
            "--config",
            "game.toml",
            "--at",
            "2026-11-30 21:00",
            "eliminate",
            "汉兵3",
            "--cause",
            "投票",
        ])
        .assert()
        .success();
    let out = night_cmd(
        dir.path(),
        &["--kill-post", "楚炮1=kill.txt", "actions.toml"],
    )
    .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("月黑风高，楚炮一声"), "{text}");
    assert!(!text.contains("请在此贴上 楚炮1"), "{text}");
    assert!(text.contains("对象 汉兵3 已经出局"), "{text}");
    assert!(text.contains("未设截止时间"), "{text}");
}

#[test]
fn cli_errors_are_chinese_and_point_at_the_place() {
    let dir = fixture_dir();
    std::fs::write(
        dir.path().join("bad.toml"),
        "[[action]]\nby = \"楚炮1\"\npower = \"杀人\"\ntarget = \"汉兵1\"\nplatfrom = \"汉兵2\"\n",
    )
    .unwrap();
    let out = night_cmd(dir.path(), &["bad.toml"]).code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("行动文件错误：bad.toml 第 5 行"), "{err}");
    let out = night_cmd(dir.path(), &["missing.toml"]).failure();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("无法读取行动文件"), "{err}");
    let out = night_cmd(dir.path(), &["--kill-post", "楚炮1", "actions.toml"]).code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("杀手=文件"), "{err}");
    let mut game = std::fs::read_to_string(dir.path().join("game.toml")).unwrap();
    game.push_str("\n[rules.night.readings]\nlone_ma_mine = \"perhaps\"\n");
    std::fs::write(dir.path().join("game.toml"), game).unwrap();
    let out = night_cmd(dir.path(), &["actions.toml"]).code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("配置错误") && err.contains("lone_ma_mine"),
        "{err}"
    );
}

#[test]
fn cli_deadline_from_the_ruleset_minutes_after_the_close() {
    // 000 L96: due 10 minutes before dawn; the game sets the night's length (L107 is blank).
    let dir = fixture_dir();
    let mut game = std::fs::read_to_string(dir.path().join("game.toml")).unwrap();
    game.push_str("\n[rules.night]\ndeadline_after_close_minutes = 710\n");
    std::fs::write(dir.path().join("game.toml"), game).unwrap();
    // Day 1 closes 2026-11-30 21:00; + 710 min = 2026-12-01 08:50: 汉炮2's 08:55 kill is late.
    let out = night_cmd(dir.path(), &["--json", "actions.toml"]).success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["late"].as_array().unwrap().len(), 1);
    assert_eq!(v["late"][0]["by"][0], "汉炮2");
}

#[test]
fn two_different_actions_sent_at_the_same_moment_are_both_refused() {
    // 000 L96 “…可以更换行使特权的对象”: the last one counts, and two at the same latest moment
    // leave no last one; an earlier one is not taken instead.
    let acts = [
        at(kill("楚炮1", "汉兵1", "汉兵5"), "01:00"),
        at(kill("楚炮1", "汉兵2", "汉兵5"), "02:00"),
        at(kill("楚炮1", "汉兵3", "汉兵5"), "02:00"),
    ];
    let r = run(&acts);
    assert!(r.deaths.is_empty());
    assert_eq!(r.refused.len(), 3);
    assert!(refused_reason(&r, "楚炮1").contains("寄出时间相同"));
    // The same action sent twice is one action.
    let r = run(&[
        kill("楚炮1", "汉兵1", "汉兵5"),
        kill("楚炮1", "汉兵1", "汉兵5"),
    ]);
    assert_eq!(died(&r), ["汉兵1"]);
    assert!(r.refused.is_empty());
}

#[test]
fn an_action_naming_no_actor_is_refused_not_a_panic() {
    let mut a = act("楚炮1", "杀人", "汉兵1");
    a.by.clear();
    let mut b = act("楚马1", "查证", "汉兵1");
    b.by.clear();
    let r = run(&[a, b]);
    assert_eq!(r.refused.len(), 2);
    assert!(r.refused[0].reason.contains("没有写行动的玩家"));
}

mod random_nights {
    use super::*;
    use proptest::prelude::*;

    const WHO: &[&str] = &[
        "楚帅", "楚车1", "楚马1", "楚马2", "楚炮1", "楚炮2", "楚相1", "楚相2", "楚士1", "楚兵1",
        "楚兵2", "汉帅", "汉车1", "汉车2", "汉马1", "汉炮1", "汉炮2", "汉相1", "汉士2", "汉兵1",
        "汉兵2", "汉兵3", "路人",
    ];
    const POWERS: &[&str] = &[
        "杀人",
        "炮架子",
        "禁锢",
        "查证",
        "救治",
        "诅咒",
        "庇佑",
        "祈祷",
        "抽将",
        "偷窃",
    ];

    fn action() -> impl Strategy<Value = Action> {
        (
            0..WHO.len(),
            0..POWERS.len(),
            0..WHO.len(),
            proptest::option::of(0..WHO.len()),
            proptest::option::of(0u32..4),
        )
            .prop_map(|(b, p, t, pl, h)| {
                let mut a = act(WHO[b], POWERS[p], WHO[t]);
                a.platform = pl.map(|i| WHO[i].to_string());
                match h {
                    Some(h) => at(a, &format!("0{h}:00")),
                    None => a,
                }
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]
        /// Any night, however odd, resolves without a panic, and the same whichever order its
        /// actions come in (000 L99).
        #[test]
        fn any_night_resolves_and_order_does_not_matter(
            acts in proptest::collection::vec(action(), 0..24),
            dead_bing in 0usize..5,
        ) {
            let out: Vec<&str> = ["汉兵1", "汉兵2", "汉兵3", "汉兵4", "汉兵5"][..dead_bing].to_vec();
            let s = dead(&out);
            let g = game();
            let base = run_with(&g, &s, &acts);
            let mut rev = acts.clone();
            rev.reverse();
            prop_assert_eq!(run_with(&g, &s, &rev), base.clone());
            let mut rot = acts.clone();
            if !rot.is_empty() {
                rot.rotate_left(acts.len() / 2);
            }
            prop_assert_eq!(run_with(&g, &s, &rot), base);
        }
    }
}

/// Issue 31: the offline command reads saved pages of the judge's inbox as well as an actions
/// file (000 L80 "左士…每夜可以通过短消息向法官提交一个诅咒对象的名字"): a player's message after the
/// day's close in his own words is his action; one sent before the close is not the night's; one
/// that reads as no action is told to the judge, never dropped.
#[test]
fn cli_reads_the_nights_actions_from_saved_private_message_pages() {
    let dir = fixture_dir();
    let page: serde_json::Value = serde_json::from_slice(
        &std::fs::read("tests/fixtures/discuz/pm/mobile_v1_mypm_subop_view_touid10_judge.json")
            .unwrap(),
    )
    .unwrap();
    let template = page["Variables"]["list"][0].clone();
    let message = |pmid: u64, from: &str, at: i64, text: &str| {
        let mut m = template.clone();
        m["pmid"] = pmid.to_string().into();
        m["author"] = from.into();
        m["msgfrom"] = from.into();
        m["dateline"] = at.to_string().into();
        m["message"] = text.into();
        m["subject"] = text.into();
        m
    };
    let mut page = page.clone();
    page["Variables"]["list"] = serde_json::json!([
        message(11, "楚士1", 1796047200, "诅咒：汉兵3"), // 22:00, after the 21:00 close
        message(12, "楚士2", 1796040000, "庇佑：汉兵4"), // 20:00, before it: the day's
        message(13, "楚兵1", 1796047500, "法官好，今晚我休息"), // reads as nothing
    ]);
    page["Variables"]["count"] = "3".into();
    std::fs::write(dir.path().join("inbox.json"), page.to_string()).unwrap();
    let out = night_cmd(dir.path(), &["inbox.json"]).success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let warn = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(text.contains("汉兵3：+1 票"), "{text}");
    assert!(
        !text.contains("汉兵4"),
        "a message before the close is not the night's: {text}"
    );
    assert!(
        warn.contains("短消息 pmid 13 楚兵1 的短信读不出夜间行动"),
        "{warn}"
    );
}

// ---------------------------------------------------------------------------------------------
// A second reading (audit of issue 31).

#[test]
fn a_lone_ma_still_checks_and_is_told() {
    // 000 L63 “马拥有查证权…天亮时法官将通过论坛短消息告诉双马所查证对象的身份和所属阵营”: the
    // power is the 马's; with his partner dead at dusk the survivor sends the check alone and is
    // told (nothing in 2.6.3 takes the power away with the pair; A-C4 is only about 兑子).
    let s = dead(&["汉马2"]);
    let r = run_with(&game(), &s, &[act("汉马1", "查证", "楚车1")]);
    assert!(r.refused.is_empty(), "{:?}", r.refused);
    assert_eq!(
        told(&r, "汉马1"),
        ["查证结果：楚车1 的身份是车，属楚方（L63）"]
    );
    assert!(told(&r, "汉马2").is_empty(), "the dead 马 is told nothing");
    assert!(r
        .powers_used
        .iter()
        .any(|u| u.player == "汉马1" && u.power == "查证"));
}

#[test]
fn a_heal_does_not_save_from_dying_with_a_mine() {
    // 000 L73 “如果该救治对象当夜被帅或炮所杀，不会死亡”: the heal is against a kill by a 帅 or a
    // 炮; L152 “无论死于帅、炮之手还是死于兑子” tells the two deaths apart, and L42 “夜间被杀死时一定
    // 是和攻击者同归于尽”: 楚炮1, healed by 楚相1, kills 汉马1 (连环马, L65) and dies with him.
    let r = run(&[
        kill("楚炮1", "汉马1", "汉兵5"),
        act("楚相1", "救治", "楚炮1"),
    ]);
    assert_eq!(died(&r), sorted(&["汉马1", "楚炮1"]));
    // … while a 炮's kill on him is healed (L73).
    let r = run(&[
        kill("楚炮1", "汉兵1", "汉兵5"),
        act("楚相1", "救治", "楚炮1"),
        kill("汉炮1", "楚炮1", "汉兵4"),
    ]);
    assert_eq!(died(&r), sorted(&["汉兵1"]));
}

#[test]
fn reading_a_c12_xiang_invulnerable_and_sai_xiang_yan() {
    // 000 L78 “一个相选择救治本方另一个相且没有被塞相眼时，构成连环相”, L77 “该相被塞相眼。当夜
    // 进入禁锢状态”, L31 (1) “如果某个玩家同时处于无敌状态和禁锢状态，则禁锢状态无效”: 楚相1 heals
    // 楚相2, 汉兵1 prays for 楚相2 (塞相眼), 楚兵1 and 楚兵2 make 楚相1 无敌 (x = 2, L86). His heal
    // stands; is 楚相2 a 连环相 mine? The 必杀 of 汉炮1 (over 汉炮2) tells: with the mine, the
    // shooter dies with 楚相2 (L78 “必杀者也会同归于尽”).
    let acts = [
        act("楚相1", "救治", "楚相2"),
        act("汉兵1", "祈祷", "楚相2"),
        act("楚兵1", "祈祷", "楚相1"),
        act("楚兵2", "祈祷", "楚相1"),
        kill("汉炮1", "楚相2", "汉炮2"),
    ];
    let r = run(&acts);
    assert!(has(&r, "楚相1", "无敌") && has(&r, "楚相1", "禁锢（无效）"));
    assert!(!has(&r, "楚相2", "兑子"));
    assert_eq!(died(&r), sorted(&["楚相2"]));
    assert_eq!(
        reading_used(&r, "xiang_invulnerable_blocked").as_deref(),
        Some("blocked")
    );
    let g = game_with(&[("xiang_invulnerable_blocked", "effective_only")]);
    let r = run_with(&g, &GameState::default(), &acts);
    assert!(has(&r, "楚相2", "兑子"));
    assert_eq!(died(&r), sorted(&["楚相2", "汉炮1"]));
    assert_eq!(
        reading_used(&r, "xiang_invulnerable_blocked").as_deref(),
        Some("effective_only")
    );
    // Not 塞相眼 at all: no reading is needed.
    let r = run(&[act("楚相1", "救治", "楚相2")]);
    assert_eq!(reading_used(&r, "xiang_invulnerable_blocked"), None);
}

#[test]
fn reading_a_c13_the_healer_of_a_one_way_lianhuan_xiang() {
    // 000 L78 “一个相选择救治本方另一个相…构成连环相。被救治的相进入兑子状态。…连环相都不能被普通
    // 杀人权（帅、炮）杀害，但是可以被必杀（重叠炮），但是必杀者也会同归于尽”: 楚相1 heals 楚相2; is
    // the healer 楚相1, one of the 连环相 but not healed nor in 兑子, safe from a plain kill?
    let plain = [
        act("楚相1", "救治", "楚相2"),
        kill("汉炮1", "楚相1", "汉兵5"),
    ];
    let bisha = [
        act("楚相1", "救治", "楚相2"),
        kill("汉炮1", "楚相1", "汉炮2"),
    ];
    let r = run(&plain);
    assert!(r.deaths.is_empty(), "{:?}", r.deaths);
    assert!(
        !has(&r, "楚相1", "兑子"),
        "L78: only the healed 相 is in 兑子"
    );
    assert_eq!(
        reading_used(&r, "lianhuan_xiang_healer").as_deref(),
        Some("both")
    );
    assert!(!r.announce.contains("楚相1"));
    let r = run(&bisha);
    assert_eq!(died(&r), sorted(&["楚相1", "汉炮1"]));
    let g = game_with(&[("lianhuan_xiang_healer", "healed_only")]);
    let r = run_with(&g, &GameState::default(), &plain);
    assert_eq!(died(&r), sorted(&["楚相1"]));
    let r = run_with(&g, &GameState::default(), &bisha);
    assert_eq!(died(&r), sorted(&["楚相1"]));
    // No 连环相 when the healer is 塞相眼 (L78 “且没有被塞相眼”): a plain kill takes him.
    let r = run(&[
        act("楚相1", "救治", "楚相2"),
        act("汉兵1", "祈祷", "楚相2"),
        kill("汉炮1", "楚相1", "汉兵5"),
    ]);
    assert_eq!(died(&r), sorted(&["楚相1"]));
}

#[test]
fn reading_a_c14_an_invulnerable_substitute_for_chou_jiang() {
    // 000 L53 “本方被抓来抽将的这个人被抽杀” vs L23 “处于无敌状态的玩家，将不受任何负面特权（被杀、
    // 被禁锢、被诅咒）影响”: 汉车2, named for 抽将, is 无敌 as the platform of 楚炮1 (L24, L57), who
    // kills 汉帅 with his 兵 all dead (L17).
    let s = dead(&["汉兵1", "汉兵2", "汉兵3", "汉兵4", "汉兵5"]);
    let acts = [kill("楚炮1", "汉帅", "汉车2"), act("汉帅", "抽将", "汉车2")];
    let r = run_with(&game(), &s, &acts);
    assert!(has(&r, "汉车2", "无敌"));
    assert_eq!(died(&r), sorted(&["汉帅"]));
    assert_eq!(r.win, ["楚胜：汉帅死亡"]);
    assert_eq!(
        reading_used(&r, "chou_jiang_invulnerable_substitute").as_deref(),
        Some("shuai_dies")
    );
    let g = game_with(&[("chou_jiang_invulnerable_substitute", "substitute_dies")]);
    let r = run_with(&g, &s, &acts);
    assert_eq!(died(&r), sorted(&["汉车2"]));
    // A substitute not 无敌: no reading.
    let r = run_with(
        &game(),
        &s,
        &[kill("楚炮1", "汉帅", "汉车1"), act("汉帅", "抽将", "汉车2")],
    );
    assert_eq!(died(&r), sorted(&["汉车2"]));
    assert_eq!(reading_used(&r, "chou_jiang_invulnerable_substitute"), None);
}

#[test]
fn reading_a_c15_who_sent_first_when_a_pao_changed_his_message() {
    // 000 L59 “本方双炮互相选对方做炮架子的话，先寄出短消息那一方行使特权，后寄出那一方作炮架子”
    // with L96 “截至天亮之前10分钟，玩家都可以更换行使特权的对象”: 楚炮1 names 楚炮2 at 01:00,
    // 楚炮2 names 楚炮1 at 02:00, 楚炮1 changes his target at 03:00 (still over 楚炮2).
    let acts = [
        at(kill("楚炮1", "汉兵1", "楚炮2"), "01:00"),
        at(kill("楚炮2", "汉兵3", "楚炮1"), "02:00"),
        at(kill("楚炮1", "汉兵2", "楚炮2"), "03:00"),
    ];
    let r = run(&acts);
    assert_eq!(died(&r), sorted(&["汉兵2"]));
    assert!(has(&r, "楚炮1", "必杀") && has(&r, "楚炮2", "禁锢"));
    assert_eq!(
        reading_used(&r, "overlap_first_sent").as_deref(),
        Some("first_message")
    );
    let g = game_with(&[("overlap_first_sent", "last_message")]);
    let r = run_with(&g, &GameState::default(), &acts);
    assert_eq!(died(&r), sorted(&["汉兵3"]));
    assert!(has(&r, "楚炮2", "必杀") && has(&r, "楚炮1", "禁锢"));
    // One message each: both readings agree, none is listed.
    let r = run(&[
        at(kill("楚炮1", "汉兵1", "楚炮2"), "01:00"),
        at(kill("楚炮2", "汉兵3", "楚炮1"), "02:00"),
    ]);
    assert_eq!(died(&r), sorted(&["汉兵1"]));
    assert_eq!(reading_used(&r, "overlap_first_sent"), None);
}

#[test]
fn the_preset_lists_every_reading_with_its_default() {
    // Each open point is a Choice in `[night.readings]` (NIGHT_AMBIGUITIES; A-C12 … A-C15 from
    // the second reading, A-C16 from the service simulator), listed in the preset's commented block with its default.
    let preset = include_str!("../config/rulesets/chuhan.toml");
    let r = bansha::domain::night::resolver("chuhan").unwrap();
    for c in r.choices() {
        assert!(
            preset.contains(&format!("# {} = \"{}\"", c.key, c.default)),
            "{}",
            c.key
        );
        assert!(preset.contains(&format!("# {}.", c.id)), "{}", c.id);
        for (reading, _) in c.readings {
            assert!(
                preset.contains(&format!("\"{reading}\"")),
                "{}: {reading}",
                c.key
            );
        }
    }
    let ids: std::collections::BTreeSet<&str> = r.choices().iter().map(|c| c.id).collect();
    for n in 1..=16 {
        assert!(ids.contains(format!("A-C{n}").as_str()), "A-C{n}");
    }
}

/// Every quotation `000 Lnn “…”` in the choices and `Lnn "…"` in the preset's night readings is
/// in the seed at that line (fragments between "…").
#[test]
fn the_quoted_seed_lines_are_the_seeds() {
    let checked = common::check_seed_quotes(
        include_str!("fixtures/seeds/000_chuhan.txt"),
        include_str!("../config/rulesets/chuhan.toml"),
        "[night.readings]",
        "chuhan",
    );
    assert!(checked >= 30, "{checked}");
}

#[test]
fn every_night_death_is_told_of_his_last_words() {
    // 000 L152 “夜间被杀者，无论死于帅、炮之手还是死于兑子，均有一次单开主题贴或跟帖留遗言的权力”:
    // the judge is reminded to tell each of them; 汉马1 is killed, 楚炮1 dies with him (兑子).
    let r = run(&[kill("楚炮1", "汉马1", "汉兵5")]);
    assert_eq!(died(&r), sorted(&["汉马1", "楚炮1"]));
    for p in ["汉马1", "楚炮1"] {
        assert!(
            r.for_judge
                .iter()
                .any(|l| l.contains(p) && l.contains("遗言") && l.contains("L152")),
            "{p}: {:?}",
            r.for_judge
        );
    }
    // Nobody dead, no reminder.
    assert!(!run(&[]).for_judge.iter().any(|l| l.contains("遗言")));
}

#[test]
fn the_left_shi_only_curses_and_the_right_shi_only_blesses() {
    // 000 L79–L80 “左士拥有诅咒权”, L81–L82 “右士拥有庇佑权”: the preset's role is 士 (its win
    // checks count 士), so which 士 is which is a mark on the seat (`marks = ["左士"]`).
    let text = GAME
        .replace(
            "\"楚士1\" = { role = \"士\", faction = \"楚\" }",
            "\"楚士1\" = { role = \"士\", faction = \"楚\", marks = [\"左士\"] }",
        )
        .replace(
            "\"楚士2\" = { role = \"士\", faction = \"楚\" }",
            "\"楚士2\" = { role = \"士\", faction = \"楚\", marks = [\"右士\"] }",
        );
    let g = bansha::domain::game::load_str(&text, Path::new("game.toml")).unwrap();
    let s = GameState::default();
    let r = run_with(
        &g,
        &s,
        &[act("楚士1", "庇佑", "楚兵1"), act("楚士2", "诅咒", "汉兵1")],
    );
    assert!(r.next_day.adjust.is_empty(), "{:?}", r.next_day.adjust);
    assert!(refused_reason(&r, "楚士1").contains("L80"));
    assert!(refused_reason(&r, "楚士2").contains("L82"));
    let r = run_with(
        &g,
        &s,
        &[act("楚士1", "诅咒", "汉兵1"), act("楚士2", "庇佑", "楚兵1")],
    );
    assert_eq!(r.next_day.adjust.get("汉兵1"), Some(&1));
    assert_eq!(r.next_day.adjust.get("楚兵1"), Some(&-1));
    assert!(r.refused.is_empty());
    assert!(!r.for_judge.iter().any(|l| l.contains("左右")));
    // Unmarked: the power is used, and the judge is asked to check it is the 士's own.
    let r = run(&[act("汉士1", "诅咒", "楚兵1")]);
    assert_eq!(r.next_day.adjust.get("楚兵1"), Some(&1));
    assert!(
        r.for_judge
            .iter()
            .any(|l| l.contains("汉士1") && l.contains("左右")),
        "{:?}",
        r.for_judge
    );
}

#[test]
fn giving_up_a_power_withdraws_what_was_sent_before() {
    // 000 L97 “所有玩家夜间都可以放弃行使当夜特权”, with L96 “截至天亮之前10分钟，玩家都可以更换
    // 行使特权的对象”: 楚炮1 sends a kill, then gives it up (`power = "放弃"`, the power given up
    // as the target); the kill is not made, his platform is not 无敌, and the judge sees why.
    let r = run(&[
        at(kill("楚炮1", "汉兵1", "汉兵5"), "01:00"),
        at(act("楚炮1", "放弃", "杀人"), "02:00"),
    ]);
    assert!(r.deaths.is_empty(), "{:?}", r.deaths);
    assert!(!has(&r, "汉兵5", "无敌"));
    assert!(refused_reason(&r, "楚炮1").contains("L97"));
    // A new kill after giving up counts again (L96).
    let r = run(&[
        at(kill("楚炮1", "汉兵1", "汉兵5"), "01:00"),
        at(act("楚炮1", "放弃", "杀人"), "02:00"),
        at(kill("楚炮1", "汉兵2", "汉兵5"), "03:00"),
    ]);
    assert_eq!(died(&r), sorted(&["汉兵2"]));
    // Giving up without naming a power gives up all of that night's; other players' stand.
    let r = run(&[
        at(kill("汉帅", "楚兵1", ""), "01:00"),
        at(act("汉帅", "抽将", "汉车2"), "01:00"),
        at(act("楚兵2", "祈祷", "楚车1"), "01:00"),
        at(act("楚兵3", "祈祷", "楚车1"), "01:00"),
        {
            let mut a = at(act("汉帅", "放弃", ""), "02:00");
            a.target = None;
            a
        },
    ]);
    assert!(r.deaths.is_empty());
    assert!(!r.facts.contains_key("used:汉帅:抽将"), "no 抽将 spent");
    assert!(has(&r, "楚车1", "无敌"));
    // One 马 gives up the pair's check (L63 “共同”).
    let r = run(&[
        at(act("汉马1", "查证", "楚车1"), "01:00"),
        at(act("汉马2", "放弃", "查证"), "02:00"),
    ]);
    assert!(told(&r, "汉马1").is_empty() && told(&r, "汉马2").is_empty());
    // A 放弃 naming no power of his role, or by a dead player, is refused with why.
    let r = run_with(
        &game(),
        &dead(&["楚炮2"]),
        &[act("楚车1", "放弃", "杀人"), act("楚炮2", "放弃", "杀人")],
    );
    assert!(refused_reason(&r, "楚车1").contains("杀人"));
    assert!(refused_reason(&r, "楚炮2").contains("出局"));
}

#[test]
fn a_changed_action_is_listed_as_replaced_not_dropped() {
    // 000 L96 “截至天亮之前10分钟，玩家都可以更换行使特权的对象”: the last one counts, and the one
    // it replaced is shown to the judge with what replaced it.
    let r = run(&[
        at(act("楚士1", "诅咒", "汉兵3"), "01:00"),
        at(act("楚士1", "诅咒", "汉兵4"), "02:00"),
    ]);
    assert_eq!(r.next_day.adjust.get("汉兵4"), Some(&1));
    assert!(!r.next_day.adjust.contains_key("汉兵3"));
    let why = refused_reason(&r, "楚士1");
    assert!(why.contains("取代") && why.contains("@02:00"), "{why}");
}

/// A-C16: a change to an object who cannot be one (out at dusk here). 000 L96 lets a player
/// change his object, the last counting, and L75 makes a heal of a 帅 "视为放弃一夜救治权": by
/// default the void last one means no power that night; "last_valid" keeps the earlier one.
/// Either way the draft says which (found by the service simulator: jiaohui's resolver kept the
/// earlier one silently, chuhan's dropped it silently).
#[test]
fn a_change_to_an_object_out_at_dusk_is_a_reading() {
    let s = dead(&["汉兵4"]);
    let acts = [
        at(act("楚士1", "诅咒", "汉兵3"), "01:00"),
        at(act("楚士1", "诅咒", "汉兵4"), "02:00"),
    ];
    let r = run_with(&game(), &s, &acts);
    assert!(r.next_day.adjust.is_empty(), "{:?}", r.next_day.adjust);
    assert_eq!(
        reading_used(&r, "change_to_void").as_deref(),
        Some("last_sent")
    );
    let why = refused_reason(&r, "楚士1");
    assert!(why.contains("已经出局") && why.contains("取代"), "{why}");
    let r = run_with(&game_with(&[("change_to_void", "last_valid")]), &s, &acts);
    assert_eq!(r.next_day.adjust.get("汉兵3"), Some(&1));
    assert_eq!(
        reading_used(&r, "change_to_void").as_deref(),
        Some("last_valid")
    );
    let why = refused_reason(&r, "楚士1");
    assert!(why.contains("已经出局") && why.contains("照旧"), "{why}");
    // Two valid objects: the last, whatever the reading, with no reading to show.
    for g in [game(), game_with(&[("change_to_void", "last_valid")])] {
        let r = run_with(
            &g,
            &s,
            &[acts[0].clone(), at(act("楚士1", "诅咒", "汉兵5"), "02:00")],
        );
        assert_eq!(r.next_day.adjust.get("汉兵5"), Some(&1));
        assert_eq!(reading_used(&r, "change_to_void"), None);
    }
}
