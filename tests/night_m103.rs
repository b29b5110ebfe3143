//! m103 ([M103] 菁华浮梦, seed 002): the night resolver through `resolve_game`, the one entry
//! point of the offline command and the daemon, on an m103 game (the preset, a full roster with
//! roles) and a game state. Every case cites the seed lines it enforces (`nl -ba` lines of
//! tests/fixtures/seeds/002_m103.txt).

use bansha::domain::config::GameConfig;
use bansha::domain::night::{self, resolve_game, Action, Resolution};
use bansha::domain::rules::state::{Change, GameState};
use chrono::{DateTime, FixedOffset};

/// The 14 seats of seed L12–L13 (4 刺客, 密探, 太医, 侍卫, 太子, 红娘, 4 宠妃, 帝王), players named
/// apart from every role and camp so a public text can be searched for them.
const SEATS: [(&str, &str, &str); 14] = [
    ("阿大", "卧底刺客", "杀了狗皇帝"),
    ("阿二", "卧底刺客", "杀了狗皇帝"),
    ("阿三", "卧底刺客", "杀了狗皇帝"),
    ("阿四", "卧底刺客", "杀了狗皇帝"),
    ("小明", "大内密探", "我爱皇帝"),
    ("小红", "妙手太医", "我爱皇帝"),
    ("小刚", "御前侍卫", "我爱皇帝"),
    ("小强", "东宫太子", "我爱皇帝"),
    ("小美", "牵线红娘", "我爱皇帝"),
    ("春桃", "绝色宠妃", "我爱皇帝"),
    ("夏荷", "绝色宠妃", "我爱皇帝"),
    ("秋菊", "绝色宠妃", "我爱皇帝"),
    ("冬梅", "绝色宠妃", "我爱皇帝"),
    ("老王", "至尊帝王", "我爱皇帝"),
];

/// Every role and camp word of the seed: none may appear in the dawn post (L52, L38).
const SECRET_WORDS: [&str; 14] = [
    "卧底刺客",
    "刺客",
    "大内密探",
    "密探",
    "妙手太医",
    "太医",
    "御前侍卫",
    "侍卫",
    "东宫太子",
    "牵线红娘",
    "宠妃",
    "帝王",
    "我爱皇帝",
    "皇帝算什么",
];

const CLOSE: &str = "2026-12-02T21:00:00+08:00";

fn t(hm: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(&format!("2026-12-02T{hm}:00+08:00")).unwrap()
}

/// The deadline of `[night] deadline_after_close_minutes = 30` (L236–L237).
fn deadline() -> Option<DateTime<FixedOffset>> {
    Some(DateTime::parse_from_rfc3339(CLOSE).unwrap() + chrono::Duration::minutes(30))
}

/// An m103 game with the 14 seats; `extra` is appended (days, `[rules.night.readings]`).
fn game(extra: &str) -> GameConfig {
    let names: Vec<String> = SEATS.iter().map(|(p, _, _)| format!("\"{p}\"")).collect();
    let mut text = format!(
        "ruleset = \"m103\"\nname = \"夜晚测试\"\n[roster]\nplayers = [{}]\njudges = [\"导演\"]\n[roster.roles]\n",
        names.join(", ")
    );
    for (p, role, faction) in SEATS {
        text.push_str(&format!(
            "\"{p}\" = {{ role = \"{role}\", faction = \"{faction}\" }}\n"
        ));
    }
    text.push_str("[[days]]\nday = 1\ncloses_at = \"2026-12-01 21:00:00\"\n");
    text.push_str("[[days]]\nday = 2\ncloses_at = \"2026-12-02 21:00:00\"\n");
    text.push_str(extra);
    bansha::domain::game::load_str(&text, std::path::Path::new("m103-night.toml")).unwrap()
}

fn readings(pairs: &[(&str, &str)]) -> String {
    let mut s = String::from("[rules.night.readings]\n");
    for (k, v) in pairs {
        s.push_str(&format!("{k} = \"{v}\"\n"));
    }
    s
}

fn state(changes: Vec<Change>) -> GameState {
    let mut st = GameState::default();
    for c in changes {
        st.push(c, "2026-12-01T12:00:00+08:00".into());
    }
    st
}

fn out(p: &str) -> Change {
    Change::Eliminate {
        player: p.into(),
        cause: "之前出局".into(),
        day: Some(1),
    }
}

fn lovers(a: &str, b: &str) -> Vec<Change> {
    [a, b]
        .iter()
        .map(|p| Change::Mark {
            player: p.to_string(),
            mark: "情侣".into(),
        })
        .collect()
}

fn fact(key: &str) -> Change {
    Change::Fact {
        key: key.into(),
        value: 1.0,
    }
}

fn a(by: &str, power: &str, target: &str) -> Action {
    Action {
        by: by.split('+').map(String::from).collect(),
        power: power.into(),
        target: (!target.is_empty()).then(|| target.to_string()),
        platform: None,
        sent_at: None,
        source: format!("{by} {power} {target}"),
    }
}

fn at(mut x: Action, hm: &str) -> Action {
    x.sent_at = Some(t(hm));
    x.source = format!("{} @{hm}", x.source);
    x
}

/// The duties of L235 all done, so a case sees only what it is about.
fn duties_done() -> Vec<Action> {
    vec![
        a("小刚", "放弃", ""),
        a("小明", "放弃", ""),
        a("小红", "放弃", ""),
    ]
}

fn resolve(g: &GameConfig, st: &GameState, n: u32, acts: &[Action]) -> Resolution {
    resolve_game(g, st, n, acts, deadline()).unwrap()
}

fn dead(r: &Resolution) -> Vec<&str> {
    r.deaths.iter().map(|d| d.player.as_str()).collect()
}

fn told(r: &Resolution, to: &str) -> Vec<String> {
    r.feedback
        .iter()
        .filter(|f| f.to == to)
        .map(|f| f.text.clone())
        .collect()
}

fn refused_for<'a>(r: &'a Resolution, source_part: &str) -> Option<&'a str> {
    r.refused
        .iter()
        .find(|x| x.action.source.contains(source_part))
        .map(|x| x.reason.as_str())
}

fn reading_ids(r: &Resolution) -> Vec<&str> {
    r.readings_used.iter().map(|x| x.id.as_str()).collect()
}

fn with(mut base: Vec<Action>, more: Vec<Action>) -> Vec<Action> {
    base.extend(more);
    base
}

// ------------------------------------------------------------ the settlement order (L223–L229)

/// L228 三 "被指杀的角色的当前身份出局"; L54 the night's exits at dawn; L52 no role.
#[test]
fn a_kill_neither_guarded_nor_saved_puts_the_target_out() {
    let g = game("");
    let r = resolve(
        &g,
        &GameState::default(),
        1,
        &with(duties_done(), vec![a("阿大", "杀人", "春桃")]),
    );
    assert_eq!(dead(&r), ["春桃"]);
    assert!(r.deaths[0].cause.contains("被指杀"), "{:?}", r.deaths);
    assert!(r.announce.contains("春桃"), "{}", r.announce);
    assert!(r.refused.is_empty(), "{:?}", r.refused);
    assert!(r.next_day.missed.is_empty());
}

/// L228 一 "被指杀的角色如果是守护的目标，指杀无效"; L127 "使其当晚指杀免疫", once a game: the fact.
#[test]
fn a_guarded_target_survives_the_kill_and_is_never_guarded_again() {
    let g = game("");
    let r = resolve(
        &g,
        &GameState::default(),
        1,
        &[
            a("小刚", "守卫", "春桃"),
            a("阿大", "杀人", "春桃"),
            a("小明", "放弃", ""),
            a("小红", "放弃", ""),
        ],
    );
    assert!(r.deaths.is_empty());
    assert!(r
        .states
        .iter()
        .any(|s| s.player == "春桃" && s.state == "指杀无效"));
    assert_eq!(r.facts.get("guarded:春桃"), Some(&1.0));
    assert!(r.announce.contains("夜晚出局：无"), "{}", r.announce);
    // Night 2: 春桃 was guarded once (L127 "每名角色一局游戏仅能被守卫一次").
    let st = state(vec![fact("guarded:春桃")]);
    let r2 = resolve(
        &g,
        &st,
        2,
        &with(
            duties_done(),
            vec![a("小刚", "守卫", "春桃"), a("阿大", "杀人", "春桃")],
        ),
    );
    assert!(refused_for(&r2, "守卫 春桃").unwrap().contains("L127"));
    assert_eq!(dead(&r2), ["春桃"]);
}

/// Guard and save on one target (L228 一 before 二): the kill is void by the guard; the 救药 is
/// spent all the same and takes 通灵 with it (L120 "<救药>使用后，太医失去技能<救药><通灵>").
#[test]
fn guard_and_save_on_one_target() {
    let g = game("");
    let r = resolve(
        &g,
        &GameState::default(),
        1,
        &[
            a("小刚", "守卫", "夏荷"),
            a("阿二", "杀人", "夏荷"),
            a("小红", "救药", "夏荷"),
            a("小明", "放弃", ""),
        ],
    );
    assert!(r.deaths.is_empty());
    let void = r
        .states
        .iter()
        .find(|s| s.player == "夏荷" && s.state == "指杀无效");
    assert!(void.unwrap().why.contains("L228 一"));
    assert_eq!(r.facts.get("used:小红:救药"), Some(&1.0));
    assert_eq!(r.facts.get("used:小红:通灵"), Some(&1.0));
    // 通灵 came first (step 3, L226): she was told who was named.
    assert!(told(&r, "小红")[0].contains("夏荷"), "{:?}", r.feedback);
}

/// L228 二 "被指杀的角色如果是<救药>的目标，此次有效指杀不会导致角色的当前身份出局"; L120: next
/// night the 太医 has neither 救药 nor 通灵.
#[test]
fn a_save_keeps_the_target_in_and_costs_the_doctor_her_tongling() {
    let g = game("");
    let r = resolve(
        &g,
        &GameState::default(),
        1,
        &[
            a("小刚", "守卫", "老王"),
            a("阿二", "杀人", "夏荷"),
            a("小红", "救药", "夏荷"),
            a("小明", "放弃", ""),
        ],
    );
    assert!(r.deaths.is_empty());
    assert!(r
        .states
        .iter()
        .any(|s| s.player == "夏荷" && s.why.contains("L228 二")));
    let st = state(vec![fact("used:小红:救药"), fact("used:小红:通灵")]);
    let r2 = resolve(
        &g,
        &st,
        2,
        &[
            a("小刚", "守卫", "春桃"),
            a("阿二", "杀人", "夏荷"),
            a("小红", "救药", "夏荷"),
            a("小红", "通灵", ""),
            a("小明", "放弃", ""),
        ],
    );
    assert_eq!(dead(&r2), ["夏荷"]);
    assert!(refused_for(&r2, "小红 救药").unwrap().contains("L120"));
    assert!(refused_for(&r2, "小红 通灵").unwrap().contains("通灵"));
    assert!(told(&r2, "小红").is_empty(), "no 通灵: {:?}", r2.feedback);
}

/// L127 the guard is "指杀免疫" only; L229 "如太医发动<毒药>，此时毒药生效，被毒害的角色出局".
#[test]
fn a_guard_does_not_stop_the_poison() {
    let g = game("");
    let r = resolve(
        &g,
        &GameState::default(),
        1,
        &[
            a("小刚", "守卫", "阿三"),
            a("小红", "毒药", "阿三"),
            a("阿大", "放弃", ""),
            a("小明", "放弃", ""),
        ],
    );
    assert_eq!(dead(&r), ["阿三"]);
    assert!(r.deaths[0].cause.contains("毒药"));
    assert_eq!(r.facts.get("used:小红:毒药"), Some(&1.0));
    assert!(
        !r.facts.contains_key("used:小红:通灵"),
        "only 救药 costs 通灵 (L120)"
    );
}

/// L229 the poison at (6), after the kill at (5); L147 殉情 at once; L54 "公示出局名单时按角色出局的顺序
/// 排序": the kill's victim, the poisoned lover, her lover.
#[test]
fn a_poison_on_a_lover_takes_the_other_and_exits_are_in_the_order_out() {
    let g = game("");
    let st = state(lovers("秋菊", "小强"));
    let r = resolve(
        &g,
        &st,
        1,
        &with(
            vec![a("小刚", "守卫", "老王"), a("小明", "放弃", "")],
            vec![a("阿大", "杀人", "春桃"), a("小红", "毒药", "秋菊")],
        ),
    );
    assert_eq!(dead(&r), ["春桃", "秋菊", "小强"]);
    assert!(r.deaths[2].cause.contains("殉情"), "{:?}", r.deaths);
    assert!(r.announce.contains("春桃、秋菊、小强"), "{}", r.announce);
}

/// L147 "情侣中若有一人出局，另一人立即出局": the kill's victim and the lover.
#[test]
fn a_kill_on_a_lover_takes_the_other() {
    let g = game("");
    let st = state(lovers("冬梅", "小明"));
    let r = resolve(
        &g,
        &st,
        1,
        &with(duties_done(), vec![a("阿四", "杀人", "小明")]),
    );
    assert_eq!(dead(&r), ["小明", "冬梅"]);
}

/// Nine alive: 4 刺客, and the 太医, 侍卫, 红娘, 春桃, 帝王; 春桃 and 小刚 lovers of one camp.
fn nine_alive() -> GameState {
    let mut c: Vec<Change> = ["夏荷", "秋菊", "冬梅", "小强", "小明"]
        .iter()
        .map(|p| out(p))
        .collect();
    c.extend(lovers("春桃", "小刚"));
    state(c)
}

/// A win reached at (5) before the poison (L164 "游戏立即结束", L170 "宣布阵营获得胜利会立即终止一切
/// 结算"): 4 刺客 of 8 alive after the kill (L181), so (6) does not happen and the lover of the
/// victim stays (A-M7, default each_exit).
#[test]
fn a_win_at_the_kill_ends_the_night_before_the_poison_and_the_lover() {
    let g = game("");
    let acts = [
        a("小刚", "守卫", "老王"),
        a("阿大", "杀人", "春桃"),
        a("小红", "毒药", "阿大"),
    ];
    let r = resolve(&g, &nine_alive(), 2, &acts);
    assert_eq!(dead(&r), ["春桃"]);
    assert!(
        r.announce.contains("游戏结束：【杀了狗皇帝】阵营胜利"),
        "{}",
        r.announce
    );
    assert!(
        r.win.iter().any(|w| w.starts_with("杀了狗皇帝（刺客）胜")),
        "{:?}",
        r.win
    );
    assert!(reading_ids(&r).contains(&"A-M7"));
    assert!(r.for_judge.iter().any(|l| l.contains("L170")));
    // The poison was 发动 at (3), so it is spent (L121), but settles nobody.
    assert_eq!(r.facts.get("used:小红:毒药"), Some(&1.0));

    // Without the kill there is no win at (5): the poison at (6) puts 阿大 out.
    let r = resolve(&g, &nine_alive(), 2, &[acts[0].clone(), acts[2].clone()]);
    assert_eq!(dead(&r), ["阿大"]);
    assert!(r.win.is_empty(), "{:?}", r.win);

    // A-M7 after_lovers: the lover goes out with the victim, then the win (4 of 7).
    let g = game(&readings(&[("win_before_lover", "after_lovers")]));
    let r = resolve(&g, &nine_alive(), 2, &acts);
    assert_eq!(dead(&r), ["春桃", "小刚"]);
    assert!(r.announce.contains("游戏结束"));
}

/// L116 查验: "我爱皇帝阵营" or "非我爱皇帝阵营", the camp only; at (4), before the kill settles.
#[test]
fn the_spy_learns_the_camp_only() {
    let g = game("");
    let acts = |target: &str| {
        vec![
            a("小刚", "守卫", "老王"),
            a("阿大", "杀人", "小明"),
            a("小红", "放弃", ""),
            a("小明", "查验", target),
        ]
    };
    let r = resolve(&g, &GameState::default(), 1, &acts("阿二"));
    assert_eq!(told(&r, "小明"), ["查验 阿二：<非我爱皇帝阵营>（L116）"]);
    // Killed the same night at (5): the check of (4) is answered all the same.
    assert_eq!(dead(&r), ["小明"]);
    let r = resolve(&g, &GameState::default(), 1, &acts("老王"));
    assert_eq!(told(&r, "小明"), ["查验 老王：<我爱皇帝阵营>（L116）"]);
    assert!(!told(&r, "小明")[0].contains("帝王"), "no role");
}

/// L119 通灵<强制> "反馈被指杀的角色": the 太医 is told the kill's target even when it is guarded,
/// and told that nobody was named when nobody was.
#[test]
fn tongling_names_the_kill_target_or_nobody() {
    let g = game("");
    let r = resolve(
        &g,
        &GameState::default(),
        1,
        &[
            a("小刚", "守卫", "夏荷"),
            a("阿大", "杀人", "夏荷"),
            a("小红", "放弃", ""),
            a("小明", "放弃", ""),
        ],
    );
    assert_eq!(told(&r, "小红"), ["通灵：今夜被指杀的角色是 夏荷（L119）"]);
    let r = resolve(
        &g,
        &GameState::default(),
        1,
        &with(duties_done(), vec![a("阿大", "放弃", "")]),
    );
    assert_eq!(told(&r, "小红"), ["通灵：今夜无人被指杀（L119）"]);
}

/// L137 "杀了狗皇帝阵营优先判负后，杀了狗皇帝阵营失去杀人技能" (here by surrender, L86–L90); A-M3:
/// does 通灵 report the void kill's target?
#[test]
fn a_kill_by_a_lost_camp_is_void_and_tongling_follows_the_reading() {
    // Three camps: 阿四 and 春桃 eloped (L148), so the surrender leaves two standing (L168).
    let mut c = lovers("阿四", "春桃");
    for p in ["阿四", "春桃", "小美"] {
        c.push(Change::SetRole {
            player: p.into(),
            role: None,
            faction: Some("皇帝算什么".into()),
        });
    }
    c.push(Change::Surrender {
        faction: "杀了狗皇帝".into(),
    });
    let st = state(c);
    let acts = with(duties_done(), vec![a("阿大", "杀人", "夏荷")]);
    let r = resolve(&game(""), &st, 1, &acts);
    assert!(r.deaths.is_empty());
    assert!(refused_for(&r, "阿大 杀人").unwrap().contains("L137"));
    assert_eq!(told(&r, "小红"), ["通灵：今夜无人被指杀（L119）"]);
    assert!(reading_ids(&r).contains(&"A-M3"));
    // A lost camp's assassins have no kill to miss (L137); the eloped lovers hold it now (L149)
    // and sent nothing.
    assert_eq!(r.next_day.missed, ["阿四", "春桃"]);
    let g = game(&readings(&[("tongling_void_kill", "any_sent")]));
    let r = resolve(&g, &st, 1, &acts);
    assert_eq!(told(&r, "小红"), ["通灵：今夜被指杀的角色是 夏荷（L119）"]);
}

/// L149 寡妇刀: once 杀了狗皇帝 has lost, the lovers of 皇帝算什么 kill; a lover before that cannot
/// (L146 "若情侣中有且只有一刺客，则其失去<杀人>技能").
#[test]
fn eloped_lovers_kill_only_after_the_assassins_camp_lost() {
    let eloped = |extra: Vec<Change>| {
        let mut c = lovers("阿四", "春桃");
        for p in ["阿四", "春桃", "小美"] {
            c.push(Change::SetRole {
                player: p.into(),
                role: None,
                faction: Some("皇帝算什么".into()),
            });
        }
        c.extend(extra);
        state(c)
    };
    let acts = with(duties_done(), vec![a("阿四", "杀人", "老王")]);
    let r = resolve(&game(""), &eloped(vec![]), 1, &acts);
    assert!(r.deaths.is_empty());
    assert!(refused_for(&r, "阿四 杀人").unwrap().contains("L149"));
    // The three other assassins out: 杀了狗皇帝 has lost (L185); the lovers now hold the kill.
    let st = eloped(vec![out("阿大"), out("阿二"), out("阿三")]);
    let r = resolve(&game(""), &st, 2, &acts);
    assert_eq!(dead(&r), ["老王"]);
}

/// L137, L149 "此事件发生时会通知…"; L38 "阵营被判负后，不予公示": the last assassin poisoned.
#[test]
fn a_camp_losing_in_the_night_is_told_to_the_judge_and_the_lovers_not_announced() {
    let mut c = lovers("阿四", "春桃");
    for p in ["阿四", "春桃", "小美"] {
        c.push(Change::SetRole {
            player: p.into(),
            role: None,
            faction: Some("皇帝算什么".into()),
        });
    }
    c.extend([out("阿大"), out("阿二")]);
    let r = resolve(
        &game(""),
        &state(c),
        2,
        &[
            a("小刚", "守卫", "老王"),
            a("小红", "毒药", "阿三"),
            a("小明", "放弃", ""),
            a("阿三", "放弃", ""),
        ],
    );
    assert_eq!(dead(&r), ["阿三"]);
    assert!(
        r.for_judge
            .iter()
            .any(|l| l.contains("【杀了狗皇帝】阵营今夜判负")),
        "{:?}",
        r.for_judge
    );
    assert!(told(&r, "阿四")[0].contains("寡妇刀"));
    assert!(told(&r, "春桃")[0].contains("L149"));
    assert!(!r.announce.contains("判负"), "{}", r.announce);
}

// ------------------------------------------------------------ 红线, 私奔, the 红娘's camp (L142–L148)

fn faction_after(g: &GameConfig, r: &Resolution, player: &str) -> (String, String) {
    let mut st = GameState::default();
    for c in r.changes() {
        st.push(c, String::new());
    }
    let snap = st.snapshot(g);
    let s = snap.seats.iter().find(|s| s.player == player).unwrap();
    (s.role.clone(), s.faction.clone())
}

/// L142 红线 at the start (L222), L148 私奔 of lovers of two camps, the 红娘's camp "转变为情侣所在
/// 阵营"; L146 the lone assassin lover loses the kill that very night (camps are settled before
/// the night, L223 "所有角色的阵营确定").
#[test]
fn lovers_of_two_camps_elope_with_their_matchmaker() {
    let g = game("");
    let r = resolve(
        &g,
        &GameState::default(),
        0,
        &with(
            duties_done(),
            vec![
                a("小美", "红线", "阿四、春桃"),
                a("阿四", "杀人", "老王"),
                a("阿大", "杀人", "夏荷"),
            ],
        ),
    );
    for p in ["阿四", "春桃", "小美"] {
        assert_eq!(faction_after(&g, &r, p).1, "皇帝算什么", "{p}");
    }
    assert!(r.changes().contains(&Change::Mark {
        player: "阿四".into(),
        mark: "情侣".into()
    }));
    assert!(told(&r, "阿四")[0].contains("L146"), "{:?}", r.feedback);
    assert!(told(&r, "春桃")[0].contains("阿四"));
    assert!(told(&r, "小美")[0].contains("皇帝算什么"));
    assert!(refused_for(&r, "阿四 杀人").is_some());
    assert_eq!(dead(&r), ["夏荷"]);
    assert_eq!(r.powers_used[0].power, "红线");
    // Night 0 is the first night, before day 1 (L223 "直接入夜").
    assert!(r.announce.starts_with("[b]首夜[/b]"), "{}", r.announce);
}

/// L142 "若情侣身份双刺客，红娘变刺客（不进群，可接刀）；若情侣身份为双特或双妃子，红娘身份变特或妃子".
#[test]
fn the_matchmaker_takes_the_lovers_camp_and_role() {
    let g = game("");
    for (pair, role, camp) in [
        ("阿大、阿二", "卧底刺客", "杀了狗皇帝"),
        ("小明、小刚", "红娘（特）", "我爱皇帝"),
        ("春桃、夏荷", "绝色宠妃", "我爱皇帝"),
    ] {
        let r = resolve(
            &g,
            &GameState::default(),
            0,
            &with(
                duties_done(),
                vec![a("小美", "红线", pair), a("阿三", "放弃", "")],
            ),
        );
        assert!(r.refused.is_empty(), "{pair}: {:?}", r.refused);
        assert_eq!(
            faction_after(&g, &r, "小美"),
            (role.into(), camp.into()),
            "{pair}"
        );
    }
    // "可接刀": the 红娘 made 刺客 may name the kill the same night.
    let r = resolve(
        &g,
        &GameState::default(),
        0,
        &with(
            duties_done(),
            vec![a("小美", "红线", "阿大、阿二"), a("小美", "杀人", "老王")],
        ),
    );
    assert_eq!(dead(&r), ["老王"]);
}

/// A-M4: lovers 特 + 妃 (one camp): L142 gives the camp, no role.
#[test]
fn the_matchmaker_of_a_special_and_a_consort_follows_the_reading() {
    for (reading, role) in [
        ("camp_only", "牵线红娘"),
        ("as_te", "红娘（特）"),
        ("as_fei", "绝色宠妃"),
    ] {
        let g = game(&readings(&[("matchmaker_te_fei", reading)]));
        let r = resolve(
            &g,
            &GameState::default(),
            0,
            &with(
                duties_done(),
                vec![a("小美", "红线", "小刚 和 秋菊"), a("阿大", "放弃", "")],
            ),
        );
        assert_eq!(
            faction_after(&g, &r, "小美"),
            (role.into(), "我爱皇帝".into()),
            "{reading}"
        );
        assert!(reading_ids(&r).contains(&"A-M4"), "{reading}");
    }
}

/// L142 "（不含皇帝）", two players, once at the start (L222).
#[test]
fn a_bad_red_thread_is_refused() {
    let g = game("");
    let cases = [
        ("老王、春桃", "皇帝"),
        ("春桃", "两名角色"),
        ("春桃、春桃", "同一人"),
        ("春桃、无名氏", "不是本局玩家"),
    ];
    for (target, why) in cases {
        let r = resolve(&g, &GameState::default(), 0, &[a("小美", "红线", target)]);
        assert!(
            refused_for(&r, "红线").unwrap().contains(why),
            "{target}: {:?}",
            r.refused
        );
        assert!(r.updates.is_empty());
        assert!(
            r.for_judge.iter().any(|l| l.contains("红娘尚未选择情侣")),
            "{target}"
        );
    }
    let r = resolve(
        &g,
        &state(lovers("春桃", "夏荷")),
        1,
        &[a("小美", "红线", "秋菊、冬梅")],
    );
    assert!(refused_for(&r, "红线").unwrap().contains("L222"));
    let r = resolve(
        &g,
        &GameState::default(),
        0,
        &[a("春桃", "红线", "秋菊、冬梅")],
    );
    assert!(refused_for(&r, "红线").unwrap().contains("不是牵线红娘"));
}

// ------------------------------------------------------------ 警长 殉职 (L151–L156, L236), the dawn post

/// L154 "警长并非因为罚下而出局后，须选择一名未出局的角色来继任警长"; L236 the random hand-over is
/// the judge's; L54 the day's sheriff at dawn.
#[test]
fn a_sheriff_out_in_the_night_must_name_a_successor() {
    let g = game("[[days]]\nday = 3\ncloses_at = \"2026-12-03 21:00:00\"\n");
    let mut g1 = g.clone();
    g1.days[0].sheriff = Some("老王".into());
    let r = resolve(
        &g1,
        &GameState::default(),
        2,
        &with(duties_done(), vec![a("阿大", "杀人", "老王")]),
    );
    assert!(
        r.for_judge
            .iter()
            .any(|l| l.contains("L154") && l.contains("L236")),
        "{:?}",
        r.for_judge
    );
    assert!(
        r.announce
            .contains("第3天警长：（老王 殉职，由其指定继任）"),
        "{}",
        r.announce
    );
    let r = resolve(
        &g1,
        &GameState::default(),
        2,
        &with(duties_done(), vec![a("阿大", "杀人", "春桃")]),
    );
    assert!(r.announce.contains("第3天警长：老王"), "{}", r.announce);
    assert!(!r.for_judge.iter().any(|l| l.contains("L154")));
    // Night 0 comes before day 1's election (L223, L230): no sheriff.
    let r = resolve(&g1, &GameState::default(), 0, &duties_done());
    assert!(!r.announce.contains("警长"), "{}", r.announce);
}

/// L52 "出局的角色均不公示其身份"; L38 no loss; L54 the exits in order. The dawn post names players
/// only: no role, no camp, no cause, no 守卫/救药/毒药.
#[test]
fn the_dawn_post_tells_no_role_camp_or_cause() {
    let g = game("");
    let st = state(lovers("秋菊", "小强"));
    let r = resolve(
        &g,
        &st,
        1,
        &[
            a("小刚", "守卫", "老王"),
            a("阿大", "杀人", "春桃"),
            a("小红", "毒药", "秋菊"),
            a("小明", "查验", "阿二"),
        ],
    );
    assert_eq!(dead(&r), ["春桃", "秋菊", "小强"]);
    for w in SECRET_WORDS
        .iter()
        .chain(&["殉情", "毒", "指杀", "守卫", "救药", "情侣"])
    {
        assert!(!r.announce.contains(w), "{w} in {}", r.announce);
    }
}

// ------------------------------------------------------------ 行动时限 and missed duties (L234–L239, L316)

/// L235 "夜晚侍卫、密探、太医、刺客或黑情侣需要发动技能"; L236–L238 silence is 放弃; L316 "必须行使特权
/// 的角色未在规定时间内行使" is 潜水: into `next_day.missed` and the state (missed:N:player).
#[test]
fn roles_that_sent_nothing_missed_their_duty() {
    let g = game("");
    let r = resolve(&g, &GameState::default(), 1, &[]);
    assert_eq!(
        r.next_day.missed,
        ["阿大", "阿二", "阿三", "阿四", "小明", "小红", "小刚"]
    );
    assert_eq!(r.facts.get("missed:1:小刚"), Some(&1.0));
    assert!(r
        .for_judge
        .iter()
        .any(|l| l.contains("小刚") && l.contains("L236")));
    assert!(reading_ids(&r).contains(&"A-M8"));
    // One assassin's kill is the group's (L138 "共同指杀"); 放弃 is contact (L236 "未与法官取得联系").
    let r = resolve(
        &g,
        &GameState::default(),
        1,
        &[
            a("阿三", "杀人", "春桃"),
            a("小明", "放弃", ""),
            a("小红", "救药", "春桃"),
        ],
    );
    assert_eq!(r.next_day.missed, ["小刚"]);
    // A-M8 none: the kill missed by the group is nobody's duty.
    let g = game(&readings(&[("missed_kill_duty", "none")]));
    let r = resolve(&g, &GameState::default(), 1, &duties_done());
    assert!(r.next_day.missed.is_empty(), "{:?}", r.next_day.missed);
    // A 太医 with both potions spent has nothing to answer (L120–L121).
    let st = state(vec![fact("used:小红:救药"), fact("used:小红:毒药")]);
    let r = resolve(
        &game(""),
        &st,
        2,
        &[
            a("小刚", "放弃", ""),
            a("小明", "放弃", ""),
            a("阿大", "放弃", ""),
        ],
    );
    assert!(r.next_day.missed.is_empty(), "{:?}", r.next_day.missed);
}

/// L236–L237 30 minutes after the close; L238 the 太医's 30 minutes after her 通灵 feedback. A
/// late action is listed, not resolved, and is no contact.
#[test]
fn late_actions_are_listed_and_the_doctor_counts_from_her_tongling() {
    let g = game("");
    let r = resolve(
        &g,
        &GameState::default(),
        1,
        &[
            at(a("小刚", "守卫", "春桃"), "21:31"),
            at(a("阿大", "杀人", "春桃"), "21:20"),
            at(a("小红", "通灵", ""), "21:21"),
            at(a("小红", "毒药", "阿二"), "21:50"),
            at(a("小明", "查验", "阿二"), "21:29"),
        ],
    );
    assert_eq!(r.late.len(), 1, "{:?}", r.late);
    assert_eq!(r.late[0].power, "守卫");
    assert_eq!(dead(&r), ["春桃", "阿二"]);
    assert_eq!(r.next_day.missed, ["小刚"]);
    // 30 minutes after 21:21 is 21:51: a poison at 21:52 is late.
    let r = resolve(
        &g,
        &GameState::default(),
        1,
        &[
            at(a("小红", "通灵", ""), "21:21"),
            at(a("小红", "毒药", "阿二"), "21:52"),
            a("小刚", "放弃", ""),
            a("小明", "放弃", ""),
            a("阿大", "放弃", ""),
        ],
    );
    assert_eq!(r.late.len(), 1);
    assert_eq!(r.next_day.missed, ["小红"]);
    // No 通灵 time entered: the latest it can come is the deadline, 21:30 → 22:00.
    let r = resolve(
        &g,
        &GameState::default(),
        1,
        &[
            at(a("小红", "毒药", "阿二"), "21:59"),
            a("阿大", "放弃", ""),
        ],
    );
    assert!(r.late.is_empty());
    assert_eq!(dead(&r), ["阿二"]);
}

/// The missed duties the state keeps reach the day's `missed_night_moves`, which the 潜水 count
/// reads (`lurk.night_move_duty`, L316): night N for day N, night 0 for day 1.
#[test]
fn missed_duties_in_the_state_reach_the_days() {
    let mut g = game("");
    let r = resolve(
        &g,
        &GameState::default(),
        1,
        &[
            a("小刚", "放弃", ""),
            a("阿大", "放弃", ""),
            a("小红", "放弃", ""),
        ],
    );
    let r0 = resolve(
        &g,
        &GameState::default(),
        0,
        &[
            a("小明", "放弃", ""),
            a("阿大", "放弃", ""),
            a("小红", "放弃", ""),
        ],
    );
    let mut st = GameState::default();
    for c in r.changes().into_iter().chain(r0.changes()) {
        st.push(c, String::new());
    }
    let facts = st.snapshot(&g).facts;
    night::missed_to_days(&mut g, &facts);
    // Night 0 (小刚 missed) and night 1 (小明 missed) both count for day 1.
    assert_eq!(g.days[0].missed_night_moves, ["小刚", "小明"]);
    assert!(g.days[1].missed_night_moves.is_empty());
    assert!(g.rules.lurk.night_move_duty);
}

// ------------------------------------------------------------ readings (A-M1–A-M8)

fn potions(first: &str, second: &str) -> Vec<Action> {
    vec![
        at(a("小红", "救药", "春桃"), first),
        at(a("小红", "毒药", "阿二"), second),
        a("阿大", "杀人", "春桃"),
        a("小刚", "放弃", ""),
        a("小明", "放弃", ""),
    ]
}

/// A-M1: L120 "<救药>发动后，在该夜晚不可发动技能<毒药>", L121 the converse.
#[test]
fn save_and_poison_on_one_night_follow_the_reading() {
    let r = resolve(
        &game(""),
        &GameState::default(),
        1,
        &potions("21:10", "21:20"),
    );
    assert!(r.deaths.is_empty(), "the save came first: {:?}", r.deaths);
    assert!(refused_for(&r, "毒药").unwrap().contains("L120"));
    assert!(reading_ids(&r).contains(&"A-M1"));
    let r = resolve(
        &game(""),
        &GameState::default(),
        1,
        &potions("21:20", "21:10"),
    );
    assert_eq!(dead(&r), ["春桃", "阿二"], "the poison came first");
    let g = game(&readings(&[("doctor_both_potions", "last_counts")]));
    let r = resolve(&g, &GameState::default(), 1, &potions("21:10", "21:20"));
    assert_eq!(dead(&r), ["春桃", "阿二"]);
    let g = game(&readings(&[("doctor_both_potions", "ask_again")]));
    let r = resolve(&g, &GameState::default(), 1, &potions("21:10", "21:20"));
    assert_eq!(dead(&r), ["春桃"]);
    assert_eq!(r.refused.len(), 2);
    assert!(r.for_judge.iter().any(|l| l.contains("重新答复")));
    assert!(!r.facts.contains_key("used:小红:救药"));
}

/// A-M2: L120 silent on the 太医 saving herself.
#[test]
fn the_doctor_saving_herself_follows_the_reading() {
    let acts = with(
        vec![a("小刚", "放弃", ""), a("小明", "放弃", "")],
        vec![a("阿大", "杀人", "小红"), a("小红", "救药", "小红")],
    );
    let r = resolve(&game(""), &GameState::default(), 1, &acts);
    assert!(r.deaths.is_empty());
    assert!(reading_ids(&r).contains(&"A-M2"));
    let g = game(&readings(&[("doctor_self_save", "not_allowed")]));
    let r = resolve(&g, &GameState::default(), 1, &acts);
    assert_eq!(dead(&r), ["小红"]);
    assert!(refused_for(&r, "小红 救药")
        .unwrap()
        .contains("not_allowed"));
}

/// A-M5: L194 "此阵营的大内密探、妙手太医、御前侍卫、东宫太子出局" with the 侍卫 eloped (L148).
#[test]
fn the_court_loss_with_an_eloped_special_follows_the_reading() {
    let mut c = lovers("小刚", "阿四");
    for p in ["小刚", "阿四", "小美"] {
        c.push(Change::SetRole {
            player: p.into(),
            role: None,
            faction: Some("皇帝算什么".into()),
        });
    }
    c.extend([out("小明"), out("小红")]);
    let loss = "我爱皇帝 负：本阵营的密探、太医、侍卫、太子全部出局";
    let acts = [a("阿大", "杀人", "小强"), a("小刚", "放弃", "")];
    let r = resolve(&game(""), &state(c.clone()), 2, &acts);
    assert_eq!(dead(&r), ["小强"]);
    assert!(r.win.iter().any(|w| w == loss), "{:?}", r.win);
    assert!(r
        .for_judge
        .iter()
        .any(|l| l.contains("【我爱皇帝】阵营今夜判负")));
    assert!(reading_ids(&r).contains(&"A-M5"));
    let g = game(&readings(&[("eloped_roles_in_loss", "original_roles")]));
    let r = resolve(&g, &state(c), 2, &acts);
    assert_eq!(
        r.changes()[0],
        Change::Fact {
            key: "m103:eloped_roles_in_loss".into(),
            value: 1.0
        }
    );
    assert!(!r.win.iter().any(|w| w == loss), "{:?}", r.win);
}

/// A-M6: no rule on changing a night action (L236–L238): two guards.
#[test]
fn two_messages_for_one_power_follow_the_reading() {
    let acts = with(
        vec![a("小明", "放弃", ""), a("小红", "放弃", "")],
        vec![
            at(a("小刚", "守卫", "春桃"), "21:05"),
            at(a("小刚", "守卫", "夏荷"), "21:15"),
            a("阿大", "杀人", "春桃"),
        ],
    );
    let r = resolve(&game(""), &GameState::default(), 1, &acts);
    assert!(r.deaths.is_empty(), "the first guard counts");
    assert!(reading_ids(&r).contains(&"A-M6"));
    let g = game(&readings(&[("action_change", "last_counts")]));
    let r = resolve(&g, &GameState::default(), 1, &acts);
    assert_eq!(dead(&r), ["春桃"]);
    assert_eq!(r.facts.get("guarded:夏荷"), Some(&1.0));
    assert!(!r.facts.contains_key("guarded:春桃"));
}

/// Every choice of the resolver is in the preset, with its id and its default, commented.
#[test]
fn the_preset_lists_every_reading_with_its_lines() {
    let text = std::fs::read_to_string("config/rulesets/m103.toml").unwrap();
    let r = night::resolver("m103").unwrap();
    assert_eq!(r.choices().len(), 8);
    for c in r.choices() {
        assert!(
            text.contains(&format!("# {} = \"{}\"", c.key, c.default)),
            "{}",
            c.key
        );
        assert!(text.contains(&format!("# {}.", c.id)), "{}", c.id);
    }
    let g = game("");
    assert_eq!(g.rules.night.resolver.as_deref(), Some("m103"));
    assert_eq!(g.rules.night.deadline_after_close_minutes, Some(30));
    assert!(
        g.rules.night.readings.is_empty(),
        "the defaults are commented out"
    );
}

/// A reading the resolver does not have is an error naming the key, nothing resolved.
#[test]
fn an_unknown_reading_is_an_error() {
    // Refused when the game config loads, at its key.
    let load_error = |extra: String| match std::panic::catch_unwind(|| game(&extra)) {
        Err(e) => e.downcast_ref::<String>().cloned().unwrap_or_default(),
        Ok(_) => panic!("a reading no choice knows was accepted"),
    };
    let err = load_error(readings(&[("doctor_self_save", "maybe")]));
    assert!(
        err.contains("rules.night.readings.doctor_self_save") && err.contains("not_allowed"),
        "{err}"
    );
    let err = load_error(readings(&[("no_such", "x")]));
    assert!(err.contains("rules.night.readings.no_such"), "{err}");
}

// ------------------------------------------------------------ order independence, bad input

fn canonical(r: &Resolution) -> String {
    serde_json::to_string(r).unwrap()
}

/// The resolution does not depend on the order of the actions (the seed orders the powers, not
/// the messages, L223–L229).
#[test]
fn the_order_of_the_actions_does_not_matter() {
    let g = game("");
    let st = state(lovers("秋菊", "小强"));
    let acts = vec![
        a("小刚", "守卫", "夏荷"),
        a("阿大", "杀人", "春桃"),
        a("阿二", "杀人", "春桃"),
        a("小红", "毒药", "秋菊"),
        a("小明", "查验", "阿三"),
        a("老王", "毒药", "阿大"),
        a("小明", "飞天", "阿三"),
        at(a("小刚", "守卫", "冬梅"), "23:00"),
    ];
    let first = resolve(&g, &st, 1, &acts);
    assert_eq!(dead(&first), ["春桃", "秋菊", "小强"]);
    assert!(first.deaths[0].cause.contains("阿大、阿二"));
    let mut seed: u64 = 7;
    for _ in 0..40 {
        let mut shuffled = acts.clone();
        for i in (1..shuffled.len()).rev() {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            shuffled.swap(i, (seed >> 33) as usize % (i + 1));
        }
        assert_eq!(
            canonical(&resolve(&g, &st, 1, &shuffled)),
            canonical(&first)
        );
    }
}

/// Bad input: each action is refused with its reason in Chinese, the rest resolved, no panic.
#[test]
fn bad_actions_are_refused_with_a_reason_and_the_rest_resolved() {
    let g = game("");
    let st = state(vec![out("冬梅"), out("小强")]);
    let acts = [
        a("冬梅", "杀人", "春桃"),
        a("无名氏", "查验", "春桃"),
        a("小明", "飞天", "春桃"),
        a("小明", "查验", "无名氏"),
        a("小刚", "守卫", "小强"),
        a("春桃", "守卫", "夏荷"),
        a("小红", "毒药", ""),
        a("阿大", "杀人", "秋菊"),
    ];
    let r = resolve(&g, &st, 2, &acts);
    assert_eq!(dead(&r), ["秋菊"]);
    let why = |s: &str| refused_for(&r, s).unwrap_or("(not refused)").to_string();
    assert!(why("冬梅 杀人").contains("已出局"));
    assert!(why("无名氏 查验").contains("不是本局玩家"));
    assert!(why("小明 飞天").contains("没有这个夜间技能"));
    assert!(why("小明 查验 无名氏").contains("不是本局玩家"));
    assert!(why("小刚 守卫 小强").contains("L74"));
    assert!(why("春桃 守卫").contains("不是御前侍卫"));
    assert!(why("小红 毒药").contains("要写目标"));
    assert_eq!(r.refused.len(), 7);
    // Two different kills without times cannot be ordered: neither counts, the judge asks.
    let r = resolve(
        &g,
        &st,
        2,
        &[a("阿大", "杀人", "秋菊"), a("阿二", "杀人", "春桃")],
    );
    assert!(r.deaths.is_empty());
    assert_eq!(r.refused.len(), 2);
    assert!(r.for_judge.iter().any(|l| l.contains("分不出先后")));
}

/// L164: a game already won at dusk has no night.
#[test]
fn a_game_already_won_has_no_night() {
    let st = state(
        ["小明", "小红", "小刚", "小强", "小美", "春桃"]
            .iter()
            .map(|p| out(p))
            .collect(),
    );
    let r = resolve(&game(""), &st, 3, &[a("阿大", "杀人", "夏荷")]);
    assert!(r.deaths.is_empty());
    assert!(refused_for(&r, "阿大").unwrap().contains("L164"));
}

/// L168 "场上仅有一个阵营尚未被判负，游戏立即结束，宣布此阵营胜利": 杀了狗皇帝 surrendered (L90), the
/// poisoned lover's 殉情 (L147) leaves 皇帝算什么 none but its 红娘 (L207), so 我爱皇帝 wins at (6).
#[test]
fn the_last_camp_standing_wins_in_the_night() {
    let mut c = lovers("阿四", "春桃");
    for p in ["阿四", "春桃", "小美"] {
        c.push(Change::SetRole {
            player: p.into(),
            role: None,
            faction: Some("皇帝算什么".into()),
        });
    }
    c.push(Change::Surrender {
        faction: "杀了狗皇帝".into(),
    });
    let r = resolve(
        &game(""),
        &state(c),
        2,
        &[
            a("小刚", "守卫", "老王"),
            a("阿四", "放弃", ""),
            a("小红", "毒药", "春桃"),
            a("小明", "放弃", ""),
        ],
    );
    assert_eq!(dead(&r), ["春桃", "阿四"]);
    assert!(
        r.announce.contains("游戏结束：【我爱皇帝】阵营胜利"),
        "{}",
        r.announce
    );
    assert!(
        r.win.iter().any(|w| w == "我爱皇帝 胜：其余阵营均已判负"),
        "{:?}",
        r.win
    );
    assert!(!r.for_judge.iter().any(|l| l.contains("L154")));
}

/// L145 "情侣在成为情侣后互知共群（双刺客情侣除外）": two assassin lovers stay in their camp and its
/// kill (no 私奔, L148: one camp), and still go out together (L147).
#[test]
fn assassin_lovers_keep_their_camp_and_kill() {
    let g = game("");
    let r = resolve(
        &g,
        &GameState::default(),
        0,
        &with(
            duties_done(),
            vec![a("小美", "红线", "阿大、阿二"), a("阿二", "杀人", "冬梅")],
        ),
    );
    assert!(
        told(&r, "阿大")[0].contains("仍在刺客群"),
        "{:?}",
        r.feedback
    );
    assert_eq!(faction_after(&g, &r, "阿大").1, "杀了狗皇帝");
    assert_eq!(dead(&r), ["冬梅"]);
    let mut st = GameState::default();
    for c in r.changes() {
        st.push(c, String::new());
    }
    let r = resolve(
        &g,
        &st,
        1,
        &with(
            duties_done(),
            vec![a("小红", "毒药", "阿二"), a("阿三", "放弃", "")],
        ),
    );
    assert_eq!(dead(&r), ["阿二", "阿大"]);
}
