//! bansha42 (seed 004): the night's kill posts through `resolve_game`, each rule with its seed
//! line. Night N's posts belong to round N + 1 (L30: round 1 has no posts; L60: the posts follow
//! each night's result post; L74: their victims vote at half weight in that round).

use bansha::domain::night::{resolve_game, Action, Resolution};
use bansha::domain::rules::state::{apply_to_days, Change, GameState};
use chrono::DateTime;

/// Roster: role, faction, code (L93–L101).
const SEATS: &[(&str, &str, &str, &str)] = &[
    ("杀甲", "联合杀", "黑道", "七叶明芝"),
    ("杀乙", "联合杀", "黑道", "青鸾花"),
    ("杀丙", "联合杀", "黑道", "龙舌"),
    ("杀丁", "联合杀", "黑道", "雪罂子"),
    ("情甲", "情侣刺", "黑道", "圣火令"),
    ("情乙", "情侣刺", "黑道", "回天令"),
    ("独甲", "独立刺", "黑道", "冰蚕丝"),
    ("独乙", "独立刺", "黑道", "夜光蝶"),
    ("黑蛋君", "黑 蛋", "黑道", "七星海棠"),
    ("虾米君", "叛变的虾米", "白道", "龙血珠"),
    ("巫师君", "巫 师", "白道", "断肠草"),
    ("禁权君", "禁 权", "白道", "天罗伞"),
    ("明蛋君", "明蛋", "白道", "墨魂剑"),
    ("暗蛋君", "暗蛋", "白道", "沥血剑"),
    ("游一", "游侠", "白道", ""),
    ("游二", "游侠", "白道", ""),
    ("游三", "游侠", "白道", ""),
    ("游四", "游侠", "白道", ""),
    ("游五", "游侠", "白道", ""),
    ("游六", "游侠", "白道", ""),
];

fn game(readings: &[(&str, &str)]) -> bansha::domain::config::GameConfig {
    let names: Vec<String> = SEATS.iter().map(|s| format!("\"{}\"", s.0)).collect();
    let mut text = format!(
        "ruleset = \"bansha42\"\nname = \"测试局\"\nid = \"t\"\n[roster]\nplayers = [{}]\n[roster.roles]\n",
        names.join(", ")
    );
    for (p, r, f, c) in SEATS {
        let code = if c.is_empty() {
            String::new()
        } else {
            format!(", code = \"{c}\"")
        };
        text.push_str(&format!(
            "\"{p}\" = {{ role = \"{r}\", faction = \"{f}\"{code} }}\n"
        ));
    }
    text.push_str("[[days]]\nday = 1\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\n");
    text.push_str("[[days]]\nday = 2\nvote_thread = 6\ncloses_at = \"2026-11-30 21:00:00\"\n");
    if !readings.is_empty() {
        text.push_str("[rules.night.readings]\n");
        for (k, v) in readings {
            text.push_str(&format!("{k} = \"{v}\"\n"));
        }
    }
    bansha::domain::game::load_str(&text, std::path::Path::new("g.toml")).unwrap()
}

/// A state with these players out and these facts set.
fn state(dead: &[&str], facts: &[(&str, f64)]) -> GameState {
    let mut s = GameState::default();
    for p in dead {
        s.push(
            Change::Eliminate {
                player: p.to_string(),
                cause: "票出".into(),
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

/// An action sent at 21:MM on the night of day 1.
fn at(mut a: Action, minute: u32) -> Action {
    a.sent_at = DateTime::parse_from_rfc3339(&format!("2026-11-29T21:{minute:02}:00+08:00")).ok();
    a
}

/// Every resolution is also checked for L74's two ways in: the half voters it lists are exactly
/// the deaths whose recorded cause the tally reads as a kill post (`half_vote_causes`).
fn resolve(
    readings: &[(&str, &str)],
    st: &GameState,
    night: u32,
    actions: &[Action],
) -> Resolution {
    let r = resolve_game(&game(readings), st, night, actions, None).unwrap();
    for d in &r.deaths {
        let by_cause = d.cause.contains("贴杀") || d.cause.contains("杀帖");
        let listed = r.next_day.half_voters.contains(&d.player);
        assert_eq!(by_cause, listed, "{}: {}", d.player, d.cause);
    }
    r
}

fn dead(r: &Resolution) -> Vec<&str> {
    r.deaths.iter().map(|d| d.player.as_str()).collect()
}

fn cause<'a>(r: &'a Resolution, p: &str) -> &'a str {
    &r.deaths.iter().find(|d| d.player == p).unwrap().cause
}

fn refused(r: &Resolution, by: &str) -> String {
    r.refused
        .iter()
        .filter(|x| x.action.by[0] == by)
        .map(|x| x.reason.clone())
        .collect::<Vec<_>>()
        .join("；")
}

fn judge(r: &Resolution) -> String {
    r.for_judge.join("\n")
}

fn reading_used(r: &Resolution, id: &str) -> Option<String> {
    r.readings_used
        .iter()
        .find(|u| u.id == id)
        .map(|u| u.reading.clone())
}

/// Round 2's four posts: 杀2 (杀甲, 杀乙), 联刺1 (情甲), 独刺1 (独甲).
fn round_two() -> Vec<Action> {
    vec![
        act("杀甲", "贴杀", "游一"),
        act("青鸾花", "贴杀", "游二"),
        act("情甲", "贴杀", "游三"),
        act("独甲", "贴杀", "游四"),
    ]
}

// --- the round table (L30–L39) ----------------------------------------------------------------

#[test]
fn l31_round_two_takes_four_posts_kill_two_lovers_one_lone_one_and_victims_vote_at_half() {
    let r = resolve(&[], &state(&[], &[]), 1, &round_two());
    assert_eq!(dead(&r), ["游一", "游二", "游三", "游四"], "{r:#?}");
    assert!(r.refused.is_empty(), "{:?}", r.refused);
    // L74 "当轮被贴杀的人投票算半票"
    assert_eq!(r.next_day.half_voters, ["游一", "游二", "游三", "游四"]);
    // L59: the post names the code; the code 青鸾花 is 杀乙's.
    assert_eq!(cause(&r, "游二"), "被青鸾花贴杀");
    assert_eq!(r.facts.get("贴数:杀乙"), Some(&1.0));
    assert!(r.announce.contains("第2轮贴杀结果"), "{}", r.announce);
    assert!(
        r.announce.contains("游一 被 七叶明芝 贴杀"),
        "{}",
        r.announce
    );
}

#[test]
fn l31_a_group_posting_more_than_it_owes_loses_its_latest_post() {
    let mut acts: Vec<Action> = round_two()
        .into_iter()
        .enumerate()
        .map(|(i, a)| at(a, i as u32))
        .collect();
    acts.push(at(act("杀丙", "贴杀", "游五"), 9));
    let r = resolve(&[], &state(&[], &[]), 1, &acts);
    assert!(!dead(&r).contains(&"游五"));
    assert!(refused(&r, "杀丙").contains("超出进程表"), "{r:#?}");
}

#[test]
fn l31_too_many_posts_without_times_are_left_to_the_judge_whatever_their_order() {
    let mut acts = round_two();
    acts.push(act("杀丙", "贴杀", "游五"));
    let r = resolve(&[], &state(&[], &[]), 1, &acts);
    assert!(judge(&r).contains("无法判断哪一贴多出"), "{r:#?}");
    // The two 情侣刺/独立刺 posts stand; none of the three 联合杀 posts is picked silently.
    assert_eq!(dead(&r), ["游三", "游四"]);
    acts.reverse();
    let r2 = resolve(&[], &state(&[], &[]), 1, &acts);
    assert_eq!(dead(&r2), dead(&r));
}

#[test]
fn l60_l66_missing_posts_are_listed_for_the_judge_with_who_has_not_posted() {
    let r = resolve(&[], &state(&[], &[]), 1, &round_two()[..2]);
    let j = judge(&r);
    assert!(j.contains("应出 4 贴，只收到 2 贴"), "{j}");
    assert!(j.contains("十五分钟内") && j.contains("L66"), "{j}");
    assert!(
        j.contains("情甲（圣火令）") && j.contains("独乙（夜光蝶）"),
        "{j}"
    );
}

#[test]
fn l38_when_every_killer_is_out_the_assassins_post_for_them() {
    let st = state(&["杀甲", "杀乙", "杀丙", "杀丁"], &[]);
    let acts = [
        act("情甲", "贴杀", "游一"),
        act("情乙", "贴杀", "游二"),
        act("独甲", "贴杀", "游三"),
        act("独乙", "贴杀", "游四"),
    ];
    let r = resolve(&[], &st, 1, &acts);
    assert_eq!(
        dead(&r),
        ["游一", "游二", "游三", "游四"],
        "{:?}",
        r.refused
    );
}

#[test]
fn l12_the_black_egg_posts_only_once_every_killer_and_assassin_is_out() {
    let r = resolve(&[], &state(&[], &[]), 1, &[act("黑蛋君", "贴杀", "游一")]);
    assert!(refused(&r, "黑蛋君").contains("杀刺全部出局后"), "{r:#?}");
    let all = [
        "杀甲", "杀乙", "杀丙", "杀丁", "情甲", "情乙", "独甲", "独乙",
    ];
    let r = resolve(&[], &state(&all, &[]), 1, &[act("黑蛋君", "贴杀", "游一")]);
    assert_eq!(dead(&r), ["游一"], "{:?}", r.refused);
}

#[test]
fn l8_l11_a_player_without_the_kill_post_power_is_refused() {
    let r = resolve(&[], &state(&[], &[]), 1, &[act("游一", "贴杀", "游二")]);
    assert!(refused(&r, "游一").contains("没有贴杀权"), "{r:#?}");
    assert!(r.deaths.is_empty());
}

#[test]
fn l34_l36_rounds_five_to_seven_take_three_three_and_two_posts_and_none_after() {
    let acts = [
        at(act("杀甲", "贴杀", "游一"), 1),
        at(act("杀乙", "贴杀", "游二"), 2),
        at(act("杀丙", "贴杀", "游三"), 3),
        at(act("情甲", "贴杀", "游四"), 4),
    ];
    // Night 4 = round 5 (L34 "贴3（杀刺3）"); the union happened in round 5 (fact set earlier).
    let st = state(&[], &[("黑道联合轮", 5.0)]);
    let r = resolve(&[], &st, 4, &acts);
    assert_eq!(dead(&r), ["游一", "游二", "游三"]);
    assert!(refused(&r, "情甲").contains("共应出 3 贴"), "{r:#?}");
    let r = resolve(&[], &st, 5, &acts);
    assert_eq!(r.deaths.len(), 3);
    // L36 "第七轮：杀4人。票2出2，贴2（杀刺2）"
    let r = resolve(&[], &st, 6, &acts);
    assert_eq!(dead(&r), ["游一", "游二"]);
    let r = resolve(&[], &st, 7, &acts[..1]);
    assert!(refused(&r, "杀甲").contains("第 8 轮没有杀帖"), "{r:#?}");
}

// --- 黑道联合 (L42–L43, L10) --------------------------------------------------------------------

#[test]
fn l42_the_black_side_unites_after_round_four_and_is_told_its_members() {
    let r = resolve(&[], &state(&[], &[]), 4, &[]);
    assert_eq!(r.facts.get("黑道联合轮"), Some(&5.0));
    assert!(
        judge(&r).contains("黑道联合（004 L42，四轮已结束）"),
        "{}",
        judge(&r)
    );
    let fb = r.feedback.iter().find(|f| f.to == "独甲").unwrap();
    assert!(
        fb.text.contains("杀甲（联合杀）") && !fb.text.contains("黑蛋君"),
        "{}",
        fb.text
    );
    // L43 "黑道联合时，女巫与禁权联合"
    let fb = r.feedback.iter().find(|f| f.to == "巫师君").unwrap();
    assert!(fb.text.contains("禁权君（禁权）"), "{}", fb.text);
    assert!(!r.feedback.iter().any(|f| f.to == "黑蛋君"));
}

#[test]
fn l42_six_black_out_unite_early_and_then_only_the_total_counts() {
    let st = state(&["杀甲", "杀乙", "杀丙", "情甲", "独甲", "黑蛋君"], &[]);
    let acts = [
        act("杀丁", "贴杀", "游一"),
        act("杀丁", "贴杀", "游二"),
        act("情乙", "贴杀", "游三"),
        act("独乙", "贴杀", "游四"),
    ];
    // Round 3 (night 2): united (L42 "黑道出局6人以上"), 4 posts owed, plus one for the eloped
    // 情侣刺 (L10 "在黑道联合当轮增加一贴杀贴").
    let r = resolve(&[], &st, 2, &acts);
    assert_eq!(r.facts.get("黑道联合轮"), Some(&3.0));
    assert!(judge(&r).contains("黑道已出局 6 人"), "{}", judge(&r));
    assert!(judge(&r).contains("联合当轮加一贴"), "{}", judge(&r));
    assert_eq!(r.deaths.len(), 4, "{:?}", r.refused);
    assert!(
        judge(&r).contains("应出 5 贴，只收到 4 贴"),
        "{}",
        judge(&r)
    );
    // The round after the union: no bonus post.
    let st2 = state(
        &["杀甲", "杀乙", "杀丙", "情甲", "独甲", "黑蛋君"],
        &[("黑道联合轮", 3.0)],
    );
    let r = resolve(&[], &st2, 3, &acts);
    assert!(!judge(&r).contains("联合当轮加一贴"));
}

// --- 禁权 (L20) --------------------------------------------------------------------------------

#[test]
fn l20_the_ban_on_a_black_player_takes_one_post_and_keeps_its_target_secret() {
    let mut acts: Vec<Action> = round_two()
        .into_iter()
        .enumerate()
        .map(|(i, a)| at(a, i as u32 + 1))
        .collect();
    acts.push(act("禁权君", "禁权", "杀丙"));
    let r = resolve(&[], &state(&[], &[]), 1, &acts);
    assert_eq!(dead(&r), ["游一", "游二", "游三"], "{r:#?}");
    assert!(refused(&r, "独甲").contains("共应出 3 贴"));
    assert_eq!(reading_used(&r, "A-B6").as_deref(), Some("black_total"));
    assert!(
        r.announce.contains("不公布对何人") && !r.announce.contains("杀丙"),
        "{}",
        r.announce
    );
    assert_eq!(r.facts.get("used:禁权君:禁权"), Some(&1.0));
    assert!(judge(&r).contains("晚上9点前通知哨子"), "{}", judge(&r));
    // A-B6 banned_group: the 联合杀 owe one fewer, whoever sent last.
    let r = resolve(
        &[("ban_removes", "banned_group")],
        &state(&[], &[]),
        1,
        &acts,
    );
    assert_eq!(dead(&r), ["游一", "游三", "游四"], "{r:#?}");
    assert!(refused(&r, "青鸾花").contains("联合杀应出 1 贴"), "{r:#?}");
}

#[test]
fn l20_the_ban_on_a_white_player_changes_nothing_and_is_spent() {
    let mut acts = round_two();
    acts.push(act("禁权君", "禁权", "游六"));
    let r = resolve(&[], &state(&[], &[]), 1, &acts);
    assert_eq!(r.deaths.len(), 4);
    assert_eq!(r.facts.get("used:禁权君:禁权"), Some(&1.0));
}

#[test]
fn l20_the_ban_works_in_rounds_two_to_four_once() {
    let ban = [act("禁权君", "禁权", "杀甲")];
    let r = resolve(&[], &state(&[], &[]), 4, &ban);
    assert!(refused(&r, "禁权君").contains("第 2–4 轮"), "{r:#?}");
    let r = resolve(&[], &state(&[], &[("used:禁权君:禁权", 1.0)]), 2, &ban);
    assert!(refused(&r, "禁权君").contains("只用一次"), "{r:#?}");
    // A non-禁权's 禁权 is refused beside the 禁权's own, which stands.
    let acts = [act("游一", "禁权", "杀甲"), act("禁权君", "禁权", "游二")];
    let r = resolve(&[], &state(&[], &[]), 1, &acts);
    assert!(refused(&r, "游一").contains("不是禁权"));
    assert_eq!(r.facts.get("used:禁权君:禁权"), Some(&1.0));
}

#[test]
fn l12_the_ban_on_the_black_egg_before_it_lapses_takes_both() {
    let r = resolve(&[], &state(&[], &[]), 1, &[act("禁权君", "禁权", "黑蛋君")]);
    assert_eq!(dead(&r), ["黑蛋君", "禁权君"], "{r:#?}");
    assert!(cause(&r, "禁权君").contains("同归"));
    assert!(r.next_day.half_voters.is_empty());
}

// --- fireworks (L12, L22, L24; A-B1, A-B2) ---------------------------------------------------

#[test]
fn l22_a_posted_open_egg_takes_its_poster_and_its_identity_is_published() {
    let r = resolve(&[], &state(&[], &[]), 3, &[act("杀甲", "贴杀", "明蛋君")]);
    assert_eq!(dead(&r), ["杀甲", "明蛋君"]);
    assert!(
        r.announce
            .contains("明蛋君 接帖，身份：明蛋；出帖者 杀甲 同归"),
        "{}",
        r.announce
    );
    // A-B2 default egg_only: the egg was posted (half vote, L74), the poster was not.
    assert_eq!(r.next_day.half_voters, ["明蛋君"]);
    assert_eq!(reading_used(&r, "A-B2").as_deref(), Some("egg_only"));
}

#[test]
fn l24_the_hidden_egg_goes_off_too() {
    let r = resolve(&[], &state(&[], &[]), 2, &[act("情甲", "贴杀", "暗蛋君")]);
    assert_eq!(dead(&r), ["情甲", "暗蛋君"]);
    assert!(r.announce.contains("身份：暗蛋"));
}

#[test]
fn l22_after_round_four_the_fireworks_have_lapsed() {
    // Night 4 = round 5: A-B1 default after_round_4.
    let st = state(&[], &[("黑道联合轮", 5.0)]);
    let r = resolve(&[], &st, 4, &[act("杀甲", "贴杀", "明蛋君")]);
    assert_eq!(dead(&r), ["明蛋君"]);
    assert_eq!(r.next_day.half_voters, ["明蛋君"]);
    assert!(!r.announce.contains("身份"));
    assert_eq!(reading_used(&r, "A-B1").as_deref(), Some("after_round_4"));
    // A-B1 after_four_post_rounds: round 5 still has fireworks, round 6 not.
    let rd = [("fireworks_lapse", "after_four_post_rounds")];
    let r = resolve(&rd, &st, 4, &[act("杀甲", "贴杀", "明蛋君")]);
    assert_eq!(dead(&r), ["杀甲", "明蛋君"]);
    let r = resolve(&rd, &st, 5, &[act("杀甲", "贴杀", "明蛋君")]);
    assert_eq!(dead(&r), ["明蛋君"]);
}

#[test]
fn a_b2_the_half_vote_readings_for_an_egg_and_its_poster() {
    let a = [act("杀甲", "贴杀", "明蛋君")];
    let r = resolve(
        &[("half_vote_same_fate", "egg_and_poster")],
        &state(&[], &[]),
        1,
        &a,
    );
    assert_eq!(r.next_day.half_voters, ["杀甲", "明蛋君"]);
    let r = resolve(
        &[("half_vote_same_fate", "neither")],
        &state(&[], &[]),
        1,
        &a,
    );
    assert!(r.next_day.half_voters.is_empty());
}

/// A poster who goes with the egg he posted (L22) and is himself posted the same round was
/// 贴杀 (L74): he votes at half weight in the round, whichever of the two the resolver meets
/// first (the victims' names decide that order: 明蛋君 sorts before 杀甲, 情甲 before 明蛋君).
#[test]
fn l74_a_poster_gone_with_the_egg_and_posted_himself_votes_at_half_in_either_order() {
    for (egg_poster, other, other_group_post) in
        [("杀甲", "情甲", "情甲"), ("情甲", "杀甲", "杀甲")]
    {
        let actions = [
            act(egg_poster, "贴杀", "明蛋君"),
            act(other_group_post, "贴杀", egg_poster),
        ];
        let r = resolve(&[], &state(&[], &[]), 1, &actions);
        let mut d = dead(&r);
        d.sort();
        let mut want = vec![egg_poster, "明蛋君"];
        want.sort();
        assert_eq!(d, want, "{other}");
        let mut half = r.next_day.half_voters.clone();
        half.sort();
        let mut want: Vec<String> = vec![egg_poster.to_string(), "明蛋君".to_string()];
        want.sort();
        assert_eq!(half, want, "{egg_poster} posted by {other}: {:?}", r.deaths);
        assert!(
            cause(&r, egg_poster).contains("贴杀"),
            "{}",
            cause(&r, egg_poster)
        );
    }
}

/// A poster ruled out for a post not original (L63) and posted himself the same round (L74):
/// out with a half vote, and the dawn post says both.
#[test]
fn l63_l74_a_poster_ruled_out_and_posted_himself_keeps_both_lines_and_his_half_vote() {
    let actions = [act("杀甲", "非原创", "游一"), act("情甲", "贴杀", "杀甲")];
    let r = resolve(&[], &state(&[], &[]), 1, &actions);
    assert_eq!(dead(&r), ["杀甲"]);
    assert_eq!(r.next_day.half_voters, ["杀甲"]);
    assert!(r.announce.contains("非原创或非首发"), "{}", r.announce);
    assert!(r.announce.contains("杀甲 被 圣火令 贴杀"), "{}", r.announce);
}

#[test]
fn l12_a_post_on_the_black_egg_takes_the_poster_until_round_four_ends() {
    let r = resolve(&[], &state(&[], &[]), 3, &[act("杀甲", "贴杀", "黑蛋君")]);
    assert_eq!(dead(&r), ["杀甲", "黑蛋君"]);
    // The 黑蛋's identity is not published (only the eggs', L22, L24).
    assert!(!r.announce.contains("身份"), "{}", r.announce);
    let st = state(&[], &[("黑道联合轮", 5.0)]);
    let r = resolve(&[], &st, 4, &[act("杀甲", "贴杀", "黑蛋君")]);
    assert_eq!(dead(&r), ["黑蛋君"]);
}

// --- the 巫师 (L16–L18; A-B3, A-B4, A-B5, A-B8) ------------------------------------------------

#[test]
fn l16_the_antidote_brings_back_a_posted_player_with_a_full_vote() {
    let mut acts = round_two();
    acts.push(act("巫师君", "解药", "游二"));
    let r = resolve(&[], &state(&[], &[]), 1, &acts);
    assert_eq!(dead(&r), ["游一", "游三", "游四"]);
    assert!(!r.next_day.half_voters.contains(&"游二".to_string()));
    assert!(r.announce.contains("巫师用解药救回 游二"), "{}", r.announce);
    assert_eq!(r.facts.get("used:巫师君:解药"), Some(&1.0));
    assert!(judge(&r).contains("用药需出贴"));
}

#[test]
fn l16_l17_the_antidote_saves_only_the_posted_once_never_in_the_last_round_and_may_save_herself() {
    let r = resolve(&[], &state(&[], &[]), 1, &[act("巫师君", "解药", "游二")]);
    assert!(
        refused(&r, "巫师君").contains("不是本轮被帖杀的死者"),
        "{r:#?}"
    );
    let r = resolve(
        &[],
        &state(&[], &[("used:巫师君:解药", 1.0)]),
        1,
        &[act("杀甲", "贴杀", "游一"), act("巫师君", "解药", "游一")],
    );
    assert!(refused(&r, "巫师君").contains("只能用一次"));
    let st = state(&[], &[("黑道联合轮", 5.0)]);
    let r = resolve(
        &[],
        &st,
        6,
        &[act("杀甲", "贴杀", "游一"), act("巫师君", "解药", "游一")],
    );
    assert!(refused(&r, "巫师君").contains("最后一轮"), "{r:#?}");
    // L17 "女巫解药可自救"
    let r = resolve(
        &[],
        &state(&[], &[]),
        1,
        &[
            act("杀甲", "贴杀", "巫师君"),
            act("巫师君", "解药", "巫师君"),
        ],
    );
    assert!(r.deaths.is_empty(), "{r:#?}");
}

#[test]
fn a_b3_the_witch_saving_a_fireworks_egg() {
    let acts = [
        act("杀甲", "贴杀", "明蛋君"),
        act("巫师君", "解药", "明蛋君"),
    ];
    let r = resolve(&[], &state(&[], &[]), 1, &acts);
    // Default poster_stays_dead: the fireworks went off.
    assert_eq!(dead(&r), ["杀甲"]);
    assert_eq!(
        reading_used(&r, "A-B3").as_deref(),
        Some("poster_stays_dead")
    );
    assert!(r.announce.contains("身份：明蛋"));
    let r = resolve(
        &[("saved_egg_poster", "poster_revives")],
        &state(&[], &[]),
        1,
        &acts,
    );
    assert!(r.deaths.is_empty(), "{r:#?}");
    assert!(!r.announce.contains("身份"));
    // After the lapse the save is a plain save.
    let st = state(&[], &[("黑道联合轮", 5.0)]);
    let r = resolve(&[], &st, 4, &acts);
    assert!(r.deaths.is_empty(), "{r:#?}");
}

#[test]
fn l16_the_poison_kills_any_living_player_without_a_half_vote_and_lapses_after_round_four() {
    let mut acts = round_two();
    acts.push(act("巫师君", "毒药", "杀丁"));
    let r = resolve(&[], &state(&[], &[]), 1, &acts);
    assert!(dead(&r).contains(&"杀丁"));
    assert!(!r.next_day.half_voters.contains(&"杀丁".to_string()));
    assert_eq!(r.facts.get("used:巫师君:毒药"), Some(&1.0));
    // L17 "两种药可同时在一轮使用"
    acts.push(act("巫师君", "解药", "游一"));
    let r = resolve(&[], &state(&[], &[]), 1, &acts);
    assert_eq!(dead(&r), ["杀丁", "游二", "游三", "游四"]);
    // L17 "毒药在第四轮结束后失效"
    let st = state(&[], &[("黑道联合轮", 5.0)]);
    let r = resolve(&[], &st, 4, &[act("巫师君", "毒药", "杀丁")]);
    assert!(refused(&r, "巫师君").contains("第四轮结束后失效"));
    // L17 "巫师每瓶药只能使用一次"
    let st = state(&[], &[("used:巫师君:毒药", 1.0)]);
    let r = resolve(&[], &st, 2, &[act("巫师君", "毒药", "杀丁")]);
    assert!(refused(&r, "巫师君").contains("只能用一次"));
    assert!(r.deaths.is_empty());
    let r = resolve(&[], &state(&[], &[]), 1, &[act("游一", "毒药", "杀丁")]);
    assert!(refused(&r, "游一").contains("不是巫师"));
}

#[test]
fn l18_magic_turns_the_antidote_into_a_second_poison() {
    let acts = [act("巫师君", "毒药", "杀甲"), act("巫师君", "魔术", "杀乙")];
    let r = resolve(&[], &state(&[], &[]), 1, &acts);
    assert_eq!(dead(&r), ["杀甲", "杀乙"]);
    assert_eq!(r.facts.get("used:巫师君:解药"), Some(&1.0));
    // One antidote: a save and a magic poison the same night cannot both be.
    let acts = [
        act("杀甲", "贴杀", "游一"),
        act("巫师君", "解药", "游一"),
        act("巫师君", "魔术", "杀乙"),
    ];
    let r = resolve(&[], &state(&[], &[]), 1, &acts);
    assert!(refused(&r, "巫师君").contains("解药只有一瓶"));
}

#[test]
fn a_b5_a_magic_poison_after_round_four() {
    let st = state(&[], &[("黑道联合轮", 5.0)]);
    let a = [act("巫师君", "魔术", "杀甲")];
    let r = resolve(&[], &st, 4, &a);
    assert!(refused(&r, "巫师君").contains("A-B5"), "{r:#?}");
    let r = resolve(&[("magic_poison_lapse", "usable")], &st, 4, &a);
    assert_eq!(dead(&r), ["杀甲"]);
    assert_eq!(reading_used(&r, "A-B5").as_deref(), Some("usable"));
}

#[test]
fn a_b4_the_witch_poisoning_the_black_egg() {
    let a = [act("巫师君", "毒药", "黑蛋君")];
    let r = resolve(&[], &state(&[], &[]), 2, &a);
    assert_eq!(dead(&r), ["黑蛋君", "巫师君"]);
    assert_eq!(reading_used(&r, "A-B4").as_deref(), Some("witch_dies"));
    let r = resolve(
        &[("poison_black_egg", "no_effect")],
        &state(&[], &[]),
        2,
        &a,
    );
    assert_eq!(dead(&r), ["黑蛋君"]);
}

#[test]
fn a_b8_the_witch_s_other_potion_in_the_round_she_goes_with_the_black_egg() {
    let acts = [
        act("杀甲", "贴杀", "游一"),
        act("巫师君", "毒药", "黑蛋君"),
        act("巫师君", "解药", "游一"),
    ];
    let r = resolve(&[], &state(&[], &[]), 2, &acts);
    assert_eq!(dead(&r), ["黑蛋君", "巫师君"]);
    assert_eq!(reading_used(&r, "A-B8").as_deref(), Some("both_stand"));
    let r = resolve(
        &[("witch_dies_same_round", "death_first")],
        &state(&[], &[]),
        2,
        &acts,
    );
    assert_eq!(dead(&r), ["黑蛋君", "巫师君", "游一"]);
    assert!(refused(&r, "巫师君").contains("A-B8"));
}

// --- A-B7 -------------------------------------------------------------------------------------

#[test]
fn a_b7_two_lone_assassins_posting_the_one_post() {
    let acts = [
        at(act("独甲", "贴杀", "游一"), 5),
        at(act("独乙", "贴杀", "游二"), 3),
    ];
    let r = resolve(&[], &state(&[], &[]), 1, &acts);
    assert_eq!(dead(&r), ["游二"]);
    assert_eq!(reading_used(&r, "A-B7").as_deref(), Some("first_sent"));
    // code_order: 独甲 (冰蚕丝, first code) has posted less or as much: his post counts.
    let r = resolve(
        &[("lone_assassin_post", "code_order")],
        &state(&[], &[]),
        1,
        &acts,
    );
    assert_eq!(dead(&r), ["游一"]);
    let st = state(&[], &[("贴数:独甲", 1.0)]);
    let r = resolve(&[("lone_assassin_post", "code_order")], &st, 2, &acts);
    assert_eq!(dead(&r), ["游二"]);
}

// --- posts that failed their check (L57, L60–L66) --------------------------------------------

#[test]
fn l60_an_iou_post_kills_and_reminds_the_judge_of_its_deadline() {
    let r = resolve(&[], &state(&[], &[]), 1, &[act("杀甲", "白条", "游一")]);
    assert_eq!(dead(&r), ["游一"]);
    assert!(
        judge(&r).contains("次日 12:00 前交给哨子、1200 字以上"),
        "{}",
        judge(&r)
    );
}

#[test]
fn l61_an_iou_post_that_set_off_fireworks_is_flagged() {
    let r = resolve(&[], &state(&[], &[]), 1, &[act("杀甲", "白条", "明蛋君")]);
    assert!(judge(&r).contains("L61"), "{}", judge(&r));
}

#[test]
fn l64_a_post_that_failed_its_check_is_rewritten() {
    let r = resolve(&[], &state(&[], &[]), 1, &[act("杀甲", "重写", "游一")]);
    assert_eq!(dead(&r), ["游一"]);
    assert!(judge(&r).contains("重写 1500 字以上"), "{}", judge(&r));
}

#[test]
fn l63_a_post_not_original_puts_its_poster_out_and_spares_the_victim() {
    let r = resolve(&[], &state(&[], &[]), 1, &[act("杀甲", "非原创", "游一")]);
    assert_eq!(dead(&r), ["杀甲"]);
    assert!(r.next_day.half_voters.is_empty());
}

#[test]
fn l65_no_iou_in_the_final_round_the_poster_is_out() {
    let st = state(&[], &[("黑道联合轮", 5.0)]);
    let r = resolve(&[], &st, 6, &[act("杀甲", "白条", "游一")]);
    assert_eq!(dead(&r), ["杀甲"]);
    assert!(refused(&r, "杀甲").contains("L65"));
}

#[test]
fn l66_giving_up_a_post_is_suicide() {
    let r = resolve(&[], &state(&[], &[]), 1, &[act("杀甲", "放弃", "")]);
    assert_eq!(dead(&r), ["杀甲"]);
    assert!(cause(&r, "杀甲").contains("等同自杀"));
}

// --- the half votes reach the next tally (L74) ------------------------------------------------

#[test]
fn l74_confirmed_post_victims_vote_at_half_weight_in_the_next_round_and_the_poisoned_do_not() {
    let mut acts = round_two();
    acts.push(act("巫师君", "毒药", "杀丁"));
    acts.push(act("杀甲", "贴杀", "明蛋君"));
    let mut g = game(&[]);
    let mut st = state(&[], &[]);
    let r = resolve_game(&g, &st, 1, &acts, None).unwrap();
    for c in r.changes() {
        st.push(c, "2026-11-29T21:20:00+08:00".into());
    }
    apply_to_days(&mut g, &st);
    let day2 = g.days.iter().find(|d| d.day == 2).unwrap();
    let mut half = day2.half_voters.clone();
    half.sort();
    let mut want = r.next_day.half_voters.clone();
    want.sort();
    assert_eq!(half, want, "{r:#?}");
    assert!(day2.dead.contains(&"杀丁".to_string()));
}

/// A post victim of night 1 votes at half weight in round 2 (L74); the judge then confirms
/// round 2's vote putting him out as well (stamped at its close): round 2's own tally, made
/// again, still counts him as it did before (a half voter, not one out before the close).
#[test]
fn l74_a_post_victim_voted_out_in_the_same_round_keeps_his_half_vote_in_it() {
    let g0 = game(&[]);
    let mut st = state(&[], &[]);
    let r = resolve_game(&g0, &st, 1, &round_two(), None).unwrap();
    for c in r.changes() {
        st.push(c, "2026-11-29T21:15:00+08:00".into());
    }
    st.push(
        Change::Eliminate {
            player: "游一".into(),
            cause: "投票出局".into(),
            day: Some(2),
        },
        "2026-11-30T21:00:00+08:00".into(),
    );
    let mut g = g0.clone();
    apply_to_days(&mut g, &st);
    let day2 = g.days.iter().find(|d| d.day == 2).unwrap();
    assert!(
        day2.half_voters.contains(&"游一".to_string()),
        "{:?}",
        day2.half_voters
    );
    assert!(!day2.dead.contains(&"游一".to_string()), "{:?}", day2.dead);
}

// --- order, readings, bad input ---------------------------------------------------------------

#[test]
fn the_resolution_does_not_depend_on_the_order_of_the_actions() {
    let mut acts = round_two();
    acts.push(act("禁权君", "禁权", "游六"));
    acts.push(act("巫师君", "解药", "游三"));
    acts.push(act("巫师君", "毒药", "杀丁"));
    acts.push(act("杀乙", "贴杀", "明蛋君"));
    let a = resolve(&[], &state(&[], &[]), 1, &acts);
    acts.reverse();
    let b = resolve(&[], &state(&[], &[]), 1, &acts);
    assert_eq!(a.deaths, b.deaths);
    assert_eq!(a.next_day, b.next_day);
    assert_eq!(a.announce, b.announce);
    assert_eq!(a.facts, b.facts);
}

#[test]
fn an_unknown_reading_is_an_error_naming_the_choices() {
    // Refused when the game config loads, pointing at the key.
    let result = std::panic::catch_unwind(|| game(&[("fireworks_lapse", "never")]));
    let err = match result {
        Err(e) => e.downcast_ref::<String>().cloned().unwrap_or_default(),
        Ok(_) => panic!("a reading no choice knows was accepted"),
    };
    assert!(err.contains("after_round_4"), "{err}");
    assert!(
        err.contains("rules.night.readings.fireworks_lapse"),
        "{err}"
    );
}

#[test]
fn bad_input_is_refused_with_a_reason_and_the_rest_resolved() {
    let st = state(&["杀丙"], &[]);
    let mut joint = act("杀甲", "贴杀", "游五");
    joint.by.push("杀乙".into());
    let acts = [
        act("杀丙", "贴杀", "游一"),
        act("路人", "贴杀", "游一"),
        act("杀甲", "投毒", "游一"),
        act("杀甲", "贴杀", "不存在"),
        joint,
        act("杀乙", "贴杀", "游二"),
    ];
    let r = resolve(&[], &st, 1, &acts);
    assert_eq!(dead(&r), ["游二"]);
    assert!(refused(&r, "杀丙").contains("已出局"));
    assert!(refused(&r, "路人").contains("不是本局玩家"));
    let all: Vec<&str> = r.refused.iter().map(|x| x.reason.as_str()).collect();
    assert!(
        all.iter().any(|x| x.contains("“投毒”不是本局的夜晚行动")),
        "{all:?}"
    );
    assert!(
        all.iter().any(|x| x.contains("不存在”不是本局玩家")),
        "{all:?}"
    );
    assert!(all.iter().any(|x| x.contains("各由一人做出")), "{all:?}");
}

#[test]
fn a_post_after_the_deadline_is_late_and_not_resolved() {
    let deadline = DateTime::parse_from_rfc3339("2026-11-29T21:15:00+08:00").ok();
    let acts = [
        at(act("杀甲", "贴杀", "游一"), 10),
        at(act("杀乙", "贴杀", "游二"), 20),
    ];
    let r = resolve_game(&game(&[]), &state(&[], &[]), 1, &acts, deadline).unwrap();
    assert_eq!(dead(&r), ["游一"]);
    assert_eq!(r.late.len(), 1);
}
