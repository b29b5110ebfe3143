//! Game state through `bansha change` / `bansha state`: scripted games from start to a decided
//! end, each alert (and each non-alert) on the way; and roster secrecy in every public output.

mod common;

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn write_game(dir: &Path, ruleset: &str, players: &[(&str, &str, &str)]) -> PathBuf {
    let names: Vec<String> = players.iter().map(|(p, _, _)| format!("\"{p}\"")).collect();
    let mut text = format!(
        "ruleset = \"{ruleset}\"\nname = \"测试局\"\n[roster]\nplayers = [{}]\njudges = [\"版杀一室法官\"]\n[roster.roles]\n",
        names.join(", ")
    );
    for (p, role, faction) in players {
        text.push_str(&format!(
            "\"{p}\" = {{ role = \"{role}\", faction = \"{faction}\" }}\n"
        ));
    }
    text.push_str("[[days]]\nday = 2\nvote_thread = 3\ncloses_at = \"2026-11-29 21:00:00\"\n");
    let path = dir.join(format!("{ruleset}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

/// Run `bansha change …`; returns stdout.
fn change(config: &Path, args: &[&str]) -> String {
    let out = Command::cargo_bin("bansha")
        .unwrap()
        .args(["change", "--config"])
        .arg(config)
        .args(args)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

fn alerts(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.starts_with('【'))
        .map(String::from)
        .filter(|l| !l.starts_with("【测试局】"))
        .collect()
}

/// The 14 seats of an m103 game (seed 002 L100–156).
const M103: [(&str, &str, &str); 14] = [
    ("刺一", "卧底刺客", "杀了狗皇帝"),
    ("刺二", "卧底刺客", "杀了狗皇帝"),
    ("刺三", "卧底刺客", "杀了狗皇帝"),
    ("刺四", "卧底刺客", "杀了狗皇帝"),
    ("密探", "大内密探", "我爱皇帝"),
    ("太医", "妙手太医", "我爱皇帝"),
    ("侍卫", "御前侍卫", "我爱皇帝"),
    ("太子", "东宫太子", "我爱皇帝"),
    ("红娘", "牵线红娘", "我爱皇帝"),
    ("妃一", "绝色宠妃", "我爱皇帝"),
    ("妃二", "绝色宠妃", "我爱皇帝"),
    ("妃三", "绝色宠妃", "我爱皇帝"),
    ("妃四", "绝色宠妃", "我爱皇帝"),
    ("帝王", "至尊帝王", "我爱皇帝"),
];

/// `bansha state` as text.
fn state_text(config: &Path) -> String {
    let out = Command::cargo_bin("bansha")
        .unwrap()
        .args(["state", "--config"])
        .arg(config)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// m103 (seed 002): the lovers of two camps elope (L148 私奔) with their 红娘; roles count for
/// the faction they are in now (L194 "此阵营的"); a faction's loss comes first (L166) and stands
/// (L172); the last faction not lost wins (L168).
#[test]
fn m103_scripted_game() {
    let dir = tempfile::tempdir().unwrap();
    let g = write_game(dir.path(), "m103", &M103);
    // 1–5: 红娘 names 妃一 and 侍卫 (L142 "这两名角色成为情侣"); of two camps they elope (L148) with her.
    for p in ["妃一", "侍卫"] {
        assert!(alerts(&change(&g, &["mark", p, "情侣"])).is_empty());
    }
    for p in ["妃一", "侍卫", "红娘"] {
        assert!(alerts(&change(&g, &["role", p, "--faction", "皇帝算什么"])).is_empty());
    }
    // 6–9: four court players out; 4 assassins of 10 alive: not yet half.
    for (p, c) in [
        ("密探", "夜杀"),
        ("太医", "投票"),
        ("妃二", "夜杀"),
        ("妃三", "投票"),
    ] {
        assert!(
            alerts(&change(&g, &["eliminate", p, "--cause", c, "--day", "2"])).is_empty(),
            "{p}"
        );
    }
    // 10: 太子 out: 我爱皇帝 has none of its 密探、太医、侍卫、太子 left — the eloped 侍卫 is no
    // longer "此阵营的" (L194) — so it loses now, and `state` does not call it one away.
    let out = change(&g, &["eliminate", "太子", "--cause", "夜杀"]);
    assert_eq!(
        alerts(&out),
        [
            "【胜负条件成立】我爱皇帝 负：本阵营的密探、太医、侍卫、太子全部出局",
            "【提醒】再有一名非刺客出局，刺客即达到存活总数的一半"
        ]
    );
    let st = state_text(&g);
    assert!(st.contains("已判负的阵营：我爱皇帝"), "{st}");
    assert!(!st.contains("侍卫、太子全部出局（再出局一人"), "{st}");
    assert!(
        st.contains("侍卫 — 御前侍卫（皇帝算什么），情侣 — 存活"),
        "{st}"
    );
    // 11: 妃一 voted out, and her lover 侍卫 with her (L147 殉情, automatic): 4 assassins of 7
    // alive win (L181); the lovers' faction is gone but for 红娘 (L207); the assassins are the
    // last faction not lost (L168).
    let out = change(&g, &["eliminate", "妃一", "--cause", "投票", "--day", "3"]);
    assert!(out.contains("侍卫 随之出局（殉情）"), "{out}");
    assert_eq!(
        alerts(&out),
        [
            "【胜负条件成立】杀了狗皇帝（刺客）胜：存活人数不少于存活总数的一半",
            "【胜负条件成立】皇帝算什么（情侣）负：除红娘外全部出局",
            "【胜负条件成立】杀了狗皇帝 胜：其余阵营均已判负",
        ]
    );
    // 12: undone (a wrong record never happened): both lovers live again, 皇帝算什么 has not
    // lost — but 我爱皇帝's loss, from a record still standing, stands.
    let out = change(&g, &["undo"]);
    assert!(out.contains("已撤销 #11"), "{out}");
    assert!(
        out.contains("侍卫 — 御前侍卫（皇帝算什么），情侣 — 存活"),
        "{out}"
    );
    assert!(
        out.contains("胜负条件：【成立】我爱皇帝 负：本阵营的密探、太医、侍卫、太子全部出局\n"),
        "{out}"
    );
    // 13: 太子 revived: a faction judged lost stays lost (L172).
    let out = change(&g, &["revive", "太子", "--cause", "法官复活"]);
    assert!(out.contains("已判负的阵营：我爱皇帝"), "{out}");
    assert!(out.contains("【成立】我爱皇帝 负：本阵营的密探"), "{out}");
    // 14: 皇帝算什么 surrenders (L86–90 "该阵营优先判负"): the assassins are the last standing.
    let out = change(&g, &["surrender", "皇帝算什么"]);
    assert_eq!(
        alerts(&out),
        ["【胜负条件成立】杀了狗皇帝 胜：其余阵营均已判负"]
    );
    let code = Command::cargo_bin("bansha")
        .unwrap()
        .args(["change", "--config"])
        .arg(&g)
        .args(["surrender", "好人"])
        .assert()
        .code(2);
    let err = String::from_utf8(code.get_output().stderr.clone()).unwrap();
    assert!(err.contains("本局没有“好人”阵营"), "{err}");
}

/// m103 L147 "情侣中若有一人出局，另一人立即出局": lovers of the same camp (who do not elope,
/// L148) go out together too.
#[test]
fn m103_lovers_of_one_camp_go_out_together() {
    let dir = tempfile::tempdir().unwrap();
    let g = write_game(dir.path(), "m103", &M103);
    for p in ["妃二", "太医"] {
        change(&g, &["mark", p, "情侣"]);
    }
    let out = change(&g, &["eliminate", "妃二", "--cause", "夜杀", "--day", "2"]);
    assert!(out.contains("太医 随之出局（殉情）"), "{out}");
    assert!(
        out.contains("太医 — 妙手太医（我爱皇帝），情侣 — 出局：第2天 殉情"),
        "{out}"
    );
    // Nobody else follows: 红娘 and the others of the camp stay.
    assert!(!out.contains("红娘 随之出局"), "{out}");
    assert!(out.contains("妃三 — 绝色宠妃（我爱皇帝） — 存活"), "{out}");
}

/// qipan (seed 003 L136–, RULES.md): killers lose after two nights without a kill.
#[test]
fn qipan_scripted_game() {
    let dir = tempfile::tempdir().unwrap();
    let mut players = vec![("主杀", "主杀", "杀手"), ("副杀", "副杀", "杀手")];
    let good: Vec<String> = (1..=14).map(|i| format!("好人{i}")).collect();
    for g in &good {
        players.push((g.as_str(), "平民", "好人"));
    }
    let g = write_game(dir.path(), "qipan", &players);
    for (i, p) in good.iter().take(5).enumerate() {
        assert!(alerts(&change(
            &g,
            &[
                "eliminate",
                p,
                "--cause",
                "夜杀",
                "--day",
                &(i + 1).to_string()
            ]
        ))
        .is_empty());
    }
    // 003 L49 "如杀手出现2个以上的夜晚杀不到人…则判杀手输": nights without a kill in all, not
    // in a row (the judge records the count; a night with a kill in between does not reset it).
    assert!(alerts(&change(&g, &["fact", "未杀人夜数", "0"])).is_empty());
    let out = change(&g, &["fact", "未杀人夜数", "1"]);
    assert_eq!(
        alerts(&out),
        ["【提醒】杀手已有一个夜晚杀不到人，再有一夜即负"]
    );
    let out = change(&g, &["fact", "未杀人夜数", "2"]);
    assert_eq!(
        alerts(&out),
        ["【胜负条件成立】杀手负：已有两个夜晚杀不到人"]
    );
    change(&g, &["undo"]);
    // No parity win in the rule post: 2 killers against 2 good players is no win for either.
    let four_dir = dir.path().join("four");
    std::fs::create_dir_all(&four_dir).unwrap();
    let four = write_game(
        &four_dir,
        "qipan",
        &[
            ("主杀", "主杀", "杀手"),
            ("副杀", "副杀", "杀手"),
            ("甲", "平民", "好人"),
            ("乙", "平民", "好人"),
            ("丙", "平民", "好人"),
        ],
    );
    let out = change(&four, &["eliminate", "丙", "--cause", "夜杀"]);
    assert!(alerts(&out).is_empty(), "2 against 2: {out}");
    // 副杀 and 主杀 voted out: the good side wins.
    let out = change(&g, &["eliminate", "副杀", "--cause", "投票"]);
    assert!(alerts(&out).is_empty());
    assert!(
        out.contains("未成立：好人胜：杀手全部出局（再出局一人即成立：主杀）"),
        "{out}"
    );
    let out = change(&g, &["eliminate", "主杀", "--cause", "投票"]);
    assert_eq!(alerts(&out), ["【胜负条件成立】好人胜：杀手全部出局"]);
}

/// bansha42 (seed 004 L36 "余1人定胜负"): the last one standing wins for their side, and the alert
/// names that side (not an anonymous "only one left").
#[test]
fn bansha42_the_last_one_left_is_named_as_the_winning_side() {
    let dir = tempfile::tempdir().unwrap();
    let g = write_game(
        dir.path(),
        "bansha42",
        &[("黑一", "联合杀", "黑道"), ("白一", "游侠", "白道")],
    );
    let out = change(&g, &["eliminate", "白一", "--cause", "投票", "--day", "7"]);
    assert_eq!(alerts(&out), ["【胜负条件成立】黑道胜：白道全部出局"]);
}

/// bansha42 (seed 004, RULES.md): 叛变 changes a player's side; a faction wiped out decides.
#[test]
fn bansha42_scripted_game() {
    let dir = tempfile::tempdir().unwrap();
    let g = write_game(
        dir.path(),
        "bansha42",
        &[
            ("黑一", "联合杀", "黑道"),
            ("黑二", "独立刺", "黑道"),
            ("虾米", "游侠", "白道"),
            ("白一", "巫师", "白道"),
            ("白二", "游侠", "白道"),
            ("白三", "游侠", "白道"),
            ("白四", "游侠", "白道"),
            ("白五", "游侠", "白道"),
        ],
    );
    let out = change(
        &g,
        &["role", "虾米", "--role", "叛变的虾米", "--faction", "黑道"],
    );
    assert!(alerts(&out).is_empty());
    for p in ["白一", "白二", "白三", "白四"] {
        assert!(
            alerts(&change(
                &g,
                &["eliminate", p, "--cause", "投票", "--day", "2"]
            ))
            .is_empty(),
            "{p}"
        );
    }
    assert!(alerts(&change(&g, &["revive", "白四", "--cause", "巫师解药"])).is_empty());
    assert!(alerts(&change(&g, &["eliminate", "白四", "--cause", "贴杀"])).is_empty());
    let out = change(&g, &["eliminate", "白五", "--cause", "投票", "--day", "3"]);
    assert_eq!(alerts(&out), ["【胜负条件成立】黑道胜：白道全部出局"]);
    // The state shows causes, roles and the decided condition.
    let out = Command::cargo_bin("bansha")
        .unwrap()
        .args(["state", "--config"])
        .arg(&g)
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("虾米 — 叛变的虾米（黑道） — 存活"), "{text}");
    assert!(text.contains("白四 — 游侠（白道） — 出局：贴杀"), "{text}");
    assert!(text.contains("【成立】黑道胜：白道全部出局"), "{text}");
    // How far the others are: three black players left, so no single elimination decides more.
    assert!(
        text.contains("未成立：白道胜：黑道全部出局（任何一人出局都不足以成立）"),
        "{text}"
    );
    assert!(!text.contains("只剩一人"), "{text}");
}

/// chuhan (seed 000 L17 "对方小兵全灭或士相全灭，才能杀死或投票处决对方的帅"): warnings as 楚's 兵 fall,
/// then 汉 wins when 楚帅 dies.
#[test]
fn chuhan_scripted_game() {
    let dir = tempfile::tempdir().unwrap();
    let mut players: Vec<(String, String, String)> = Vec::new();
    for side in ["楚", "汉"] {
        for (role, n) in [
            ("帅", 1),
            ("车", 2),
            ("马", 2),
            ("炮", 2),
            ("相", 2),
            ("士", 2),
            ("兵", 5),
        ] {
            for i in 1..=n {
                players.push((
                    format!("{side}{role}{i}"),
                    role.to_string(),
                    side.to_string(),
                ));
            }
        }
    }
    let refs: Vec<(&str, &str, &str)> = players
        .iter()
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    let g = write_game(dir.path(), "chuhan", &refs);
    for i in 1..=3 {
        assert!(alerts(&change(
            &g,
            &["eliminate", &format!("楚兵{i}"), "--cause", "夜杀"]
        ))
        .is_empty());
    }
    let out = change(&g, &["eliminate", "楚兵4", "--cause", "投票"]);
    assert_eq!(
        alerts(&out),
        ["【提醒】再死一个楚兵（或楚士楚相再死一个），楚帅即可被杀"]
    );
    let out = change(&g, &["eliminate", "楚兵5", "--cause", "夜杀"]);
    assert_eq!(
        alerts(&out),
        ["【提醒】楚帅已可被杀或投票处决（楚兵全灭，或楚士楚相全灭）"]
    );
    for p in ["汉兵1", "汉车1"] {
        assert!(alerts(&change(&g, &["eliminate", p, "--cause", "夜杀"])).is_empty());
    }
    let out = change(&g, &["eliminate", "楚帅1", "--cause", "投票"]);
    assert_eq!(alerts(&out), ["【胜负条件成立】汉胜：楚帅死亡"]);
}

/// jiaohui (seed 001 §三, RULES.md): 教会 (C) when 异教徒 and 黑暗领主 are all out; 异教徒 (C) when the
/// crusaders and the bard are.
#[test]
fn jiaohui_scripted_game() {
    let dir = tempfile::tempdir().unwrap();
    let mut players = vec![
        ("领主".to_string(), "黑暗领主", "异教徒"),
        ("诗人".to_string(), "吟游诗人", "教会"),
        ("恶子".to_string(), "恶魔之子", "异教徒"),
    ];
    for i in 1..=3 {
        players.push((format!("异{i}"), "异教徒", "异教徒"));
        players.push((format!("剑{i}"), "十字军剑士", "教会"));
    }
    for i in 1..=9 {
        players.push((format!("僧{i}"), "僧侣", "教会"));
    }
    let refs: Vec<(&str, &str, &str)> = players
        .iter()
        .map(|(a, b, c)| (a.as_str(), *b, *c))
        .collect();
    let g = write_game(dir.path(), "jiaohui", &refs);
    for p in ["僧1", "僧2", "剑1", "剑2", "异1", "异2"] {
        assert!(
            alerts(&change(&g, &["eliminate", p, "--cause", "投票"])).is_empty(),
            "{p}"
        );
    }
    // A monk found and still alive is not enough: the fact says all surviving monks are found.
    assert!(alerts(&change(&g, &["fact", "已找到全部存活僧侣", "0"])).is_empty());
    let out = change(&g, &["fact", "已找到全部存活僧侣", "1"]);
    assert_eq!(
        alerts(&out),
        ["【胜负条件成立】教会胜（A）：剑士找到全部存活僧侣且僧侣存活不少于 5 人"]
    );
    change(&g, &["undo"]);
    change(&g, &["eliminate", "异3", "--cause", "夜杀"]);
    let out = change(&g, &["eliminate", "领主", "--cause", "投票"]);
    assert_eq!(
        alerts(&out),
        ["【胜负条件成立】教会胜（C）：异教徒与黑暗领主全部出局"]
    );
}

/// bansha42 L42 "黑道出局6人以上（含6人）或四轮结束后联合": the judge is told when the union comes
/// — six of 黑道 out, or the fourth round over (the judge's record of rounds played).
#[test]
fn bansha42_the_union_is_announced_to_the_judge() {
    cite_seed(
        "004_bansha42.txt",
        42,
        "黑道出局6人以上（含6人）或四轮结束后联合",
    );
    let dir = tempfile::tempdir().unwrap();
    let mut seats: Vec<(String, &str, &str)> = (1..=8)
        .map(|i| (format!("黑{i}"), "独立刺", "黑道"))
        .collect();
    seats.extend((1..=8).map(|i| (format!("白{i}"), "游侠", "白道")));
    let refs: Vec<(&str, &str, &str)> =
        seats.iter().map(|(a, b, c)| (a.as_str(), *b, *c)).collect();
    let g = write_game(dir.path(), "bansha42", &refs);
    let union =
        "【提醒】黑道联合：黑道出局已达 6 人或四轮已结束（黑蛋永不联合；白道女巫与禁权随之联合）";
    for i in 1..=5 {
        let out = change(&g, &["eliminate", &format!("黑{i}"), "--cause", "投票"]);
        assert!(!alerts(&out).contains(&union.to_string()), "黑{i}");
    }
    let out = change(&g, &["eliminate", "黑6", "--cause", "投票"]);
    assert_eq!(alerts(&out), [union]);
    // Or four rounds over, whoever is out.
    let dir = tempfile::tempdir().unwrap();
    let g = write_game(dir.path(), "bansha42", &refs);
    assert!(alerts(&change(&g, &["fact", "已结束轮数", "3"])).is_empty());
    assert_eq!(alerts(&change(&g, &["fact", "已结束轮数", "4"])), [union]);
}

/// Roles, factions and code names never appear in public output.
#[test]
fn the_roster_stays_secret_in_public_output() {
    let dir = tempfile::tempdir().unwrap();
    let roles = [
        ("大灰狼", "狼人", "狼人阵营", "圣火令"),
        ("小飞", "平民", "好人阵营", "回天令"),
        ("李逵", "狼人", "狼人阵营", "冰蚕丝"),
        ("超人", "预言家", "好人阵营", "夜光蝶"),
    ];
    let mut text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("config/examples/banshayishi-12.toml"),
    )
    .unwrap();
    let mut table = String::from("\n[roster.roles]\n");
    for (p, r, f, c) in roles {
        table.push_str(&format!(
            "\"{p}\" = {{ role = \"{r}\", faction = \"{f}\", code = \"{c}\" }}\n"
        ));
    }
    text = text.replace(
        "judges = [\"版杀一室法官\", \"admin\"]\n",
        &format!("judges = [\"版杀一室法官\", \"admin\"]\n{table}"),
    );
    let config = dir.path().join("game.toml");
    std::fs::write(&config, text).unwrap();
    let vote: Vec<PathBuf> = (1..=4)
        .map(|p| {
            common::fixtures().join(format!(
                "discuz/desktop/guest/viewthread_tid3_vote_p{p}.html"
            ))
        })
        .collect();
    let discussion: Vec<PathBuf> = (1..=7)
        .map(|p| {
            common::fixtures().join(format!(
                "discuz/desktop/guest/viewthread_tid4_discussion_p{p}.html"
            ))
        })
        .collect();
    let mut outputs = Vec::new();
    for args in [
        vec!["tally", "--day", "2"],
        vec!["tally", "--day", "2", "--json"],
        vec!["lurk", "--day", "2"],
        vec!["lurk", "--day", "2", "--elevator"],
    ] {
        let out = Command::cargo_bin("bansha")
            .unwrap()
            .args(&args)
            .arg("--config")
            .arg(&config)
            .args(&vote)
            .args(&discussion)
            .assert()
            .success();
        outputs.push(String::from_utf8(out.get_output().stdout.clone()).unwrap());
    }
    for out in &outputs {
        for (_, r, f, c) in roles {
            for secret in [r, f, c] {
                assert!(!out.contains(secret), "{secret} in public output:\n{out}");
            }
        }
    }
    // The judge's own view does show them.
    let out = Command::cargo_bin("bansha")
        .unwrap()
        .args(["state", "--config"])
        .arg(&config)
        .assert()
        .success();
    let judge = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(judge.contains("狼人（狼人阵营），代号 圣火令"), "{judge}");
}

/// `bansha confirm`: the captured day-2 vote puts 李逵 out — unless his role is protected.
#[test]
fn confirming_a_vote_applies_the_protections() {
    let vote: Vec<PathBuf> = (1..=4)
        .map(|p| {
            common::fixtures().join(format!(
                "discuz/desktop/guest/viewthread_tid3_vote_p{p}.html"
            ))
        })
        .collect();
    let with_role = |dir: &Path, ruleset_line: &str, role: &str, faction: &str| {
        let mut text = std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("config/examples/banshayishi-12.toml"),
        )
        .unwrap();
        text = text.replace("ruleset = \"m103\"", ruleset_line);
        text = text.replace(
            "judges = [\"版杀一室法官\", \"admin\"]\n",
            &format!("judges = [\"版杀一室法官\", \"admin\"]\n[roster.roles]\n\"李逵\" = {{ role = \"{role}\", faction = \"{faction}\" }}\n\"大灰狼\" = {{ role = \"兵\", faction = \"楚\" }}\n\"小飞\" = {{ role = \"士\", faction = \"楚\" }}\n"),
        );
        let p = dir.join("game.toml");
        std::fs::write(&p, text).unwrap();
        p
    };
    let confirm = |config: &Path| {
        let out = Command::cargo_bin("bansha")
            .unwrap()
            .args(["confirm", "--day", "2", "--config"])
            .arg(config)
            .args(&vote)
            .assert()
            .success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    // m103 L124: 太子 survives a vote.
    let d = tempfile::tempdir().unwrap();
    let cfg = with_role(d.path(), "ruleset = \"m103\"", "东宫太子", "我爱皇帝");
    let out = confirm(&cfg);
    assert!(
        out.contains("【保护】李逵：太子被投票出局时发动“谁敢动我”，不出局"),
        "{out}"
    );
    let state = Command::cargo_bin("bansha")
        .unwrap()
        .args(["state", "--config"])
        .arg(&cfg)
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&state.get_output().stdout)
        .contains("李逵 — 东宫太子（我爱皇帝） — 存活"));
    // Any other role goes out.
    let d = tempfile::tempdir().unwrap();
    let cfg = with_role(d.path(), "ruleset = \"m103\"", "卧底刺客", "杀了狗皇帝");
    let out = confirm(&cfg);
    assert!(out.contains("李逵 投票出局，已记录"), "{out}");
    // chuhan L17: 楚帅 does not die while a 楚兵 (大灰狼) and a 楚士 (小飞) live; with the 兵
    // gone, he does.
    let d = tempfile::tempdir().unwrap();
    let cfg = with_role(d.path(), "ruleset = \"chuhan\"", "帅", "楚");
    let out = confirm(&cfg);
    assert!(out.contains("【保护】李逵：楚帅不死"), "{out}");
    change(&cfg, &["eliminate", "大灰狼", "--cause", "夜杀"]);
    let out = confirm(&cfg);
    assert!(out.contains("李逵 投票出局，已记录"), "{out}");
}

/// jiaohui (001): the powers that save a player voted out are asked about before the result
/// (L114, L184): `confirm` records nothing until the judge answers; 特赦 used in the same round
/// as 背德的徽章 takes precedence and the badge is kept (L95); each power is used once (L85).
#[test]
fn jiaohui_pardon_is_asked_first_and_keeps_the_badge() {
    let vote: Vec<PathBuf> = (1..=4)
        .map(|p| {
            common::fixtures().join(format!(
                "discuz/desktop/guest/viewthread_tid3_vote_p{p}.html"
            ))
        })
        .collect();
    let d = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("config/examples/banshayishi-12.toml"),
    )
    .unwrap()
    .replace("ruleset = \"m103\"", "ruleset = \"jiaohui\"")
    .replace(
        "judges = [\"版杀一室法官\", \"admin\"]\n",
        "judges = [\"版杀一室法官\", \"admin\"]\n[roster.roles]\n\"李逵\" = { role = \"恶魔之子\", faction = \"异教徒\" }\n\"大灰狼\" = { role = \"黑暗领主\", faction = \"异教徒\" }\n",
    );
    let cfg = d.path().join("game.toml");
    std::fs::write(&cfg, text).unwrap();
    let confirm = |extra: &[&str], code: i32| {
        let out = Command::cargo_bin("bansha")
            .unwrap()
            .args(["confirm", "--day", "2", "--config"])
            .arg(&cfg)
            .args(extra)
            .args(&vote)
            .assert()
            .code(code);
        let o = out.get_output();
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    };
    // 李逵 (恶魔之子) has the top vote: first the question, and nothing recorded.
    let out = confirm(&[], 2);
    assert!(out.contains("黑暗领主 是否对 李逵 使用“特赦”？"), "{out}");
    assert!(
        !d.path().join("game.state.json").exists(),
        "nothing recorded"
    );
    // A power that cannot save him is refused.
    let out = confirm(&["--pardon", "圣光"], 2);
    assert!(
        out.contains("不能用“圣光”") && out.contains("可用的：特赦"),
        "{out}"
    );
    // 特赦 used: he is saved by it, and the badge is kept (L95).
    let out = confirm(&["--pardon", "特赦"], 0);
    assert!(out.contains("【特赦】李逵 被救回，不出局"), "{out}");
    assert!(
        out.contains("保护继续保留（不记录“背德的徽章已损坏”）"),
        "{out}"
    );
    let st = state_text(&cfg);
    assert!(st.contains("特赦已用 = 1"), "{st}");
    assert!(!st.contains("背德的徽章已损坏"), "{st}");
    assert!(st.contains("李逵 — 恶魔之子（异教徒） — 存活"), "{st}");
    // Voted out again: 特赦 is spent, so no question; the badge absorbs it now (L57).
    let out = confirm(&[], 0);
    assert!(!out.contains("是否对"), "{out}");
    assert!(out.contains("“背德的徽章”抵御了这次投杀"), "{out}");
    // And a third time he is out.
    let out = confirm(&[], 0);
    assert!(out.contains("李逵 投票出局，已记录"), "{out}");
}

/// jiaohui §4.3 (seed 001 L140–L141): remainders modulo the seed, ascending, ties by submission
/// time, roles in the listed order; the working is printed and the roster written.
#[test]
fn the_jiaohui_lottery_shows_its_working_and_writes_the_roster() {
    let dir = tempfile::tempdir().unwrap();
    let seed = std::fs::read_to_string(common::fixtures().join("seeds/001_jiaohui.txt")).unwrap();
    assert!(seed
        .lines()
        .nth(140)
        .unwrap()
        .contains("按身份余数，由小到大"));
    let mut entries = String::from("seed = 7919\n");
    let names: Vec<String> = (1..=18).map(|i| format!("玩家{i:02}")).collect();
    for (i, n) in names.iter().enumerate() {
        // Numbers chosen so the remainders come out in reverse order of the names.
        let number = 7919 * 3 + (18 - i as u32) * 10;
        entries.push_str(&format!(
            "[[entry]]\nplayer = \"{n}\"\nnumber = {number}\nat = \"2026-11-20 20:{i:02}:00\"\n"
        ));
    }
    let file = dir.path().join("entries.toml");
    std::fs::write(&file, entries).unwrap();
    let roster = dir.path().join("roles.toml");
    let out = Command::cargo_bin("bansha")
        .unwrap()
        .args(["draw", "--roster-out"])
        .arg(&roster)
        .arg(&file)
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains(" 1  玩家18  23767  23767 mod 7919 = 10  2026-11-20 20:17:00  黑暗领主"),
        "{text}"
    );
    assert!(
        text.contains(" 2  玩家17  23777  23777 mod 7919 = 20  2026-11-20 20:16:00  吟游诗人"),
        "{text}"
    );
    let written = std::fs::read_to_string(&roster).unwrap();
    assert!(
        written.contains("\"玩家18\" = { role = \"黑暗领主\", faction = \"异教徒\" }"),
        "{written}"
    );
    assert!(
        written.contains("\"玩家01\" = { role = \"僧侣\", faction = \"教会\" }"),
        "{written}"
    );
    // Duplicate numbers are refused.
    std::fs::write(&file, "seed = 7919\nroles = [\"僧侣\", \"僧侣\"]\n[[entry]]\nplayer = \"甲\"\nnumber = 30000\nat = \"1\"\n[[entry]]\nplayer = \"乙\"\nnumber = 30000\nat = \"2\"\n").unwrap();
    Command::cargo_bin("bansha")
        .unwrap()
        .arg("draw")
        .arg(&file)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("重复"));
}

/// A player the judge records as out is out for every vote that closes after the recorded time:
/// their own ballot is void and votes for them do not count. Recorded after the close, the day's
/// tally is unchanged.
#[test]
fn recorded_eliminations_take_effect_in_later_tallies() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("banshayishi-12.toml");
    std::fs::copy(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("config/examples/banshayishi-12.toml"),
        &cfg,
    )
    .unwrap();
    let tally = || -> serde_json::Value {
        let out = Command::cargo_bin("bansha")
            .unwrap()
            .args(["tally", "--json", "--day", "2", "--config"])
            .arg(&cfg)
            .args((1..=4).map(|p| {
                common::fixtures().join(format!(
                    "discuz/desktop/guest/viewthread_tid3_vote_p{p}.html"
                ))
            }))
            .assert()
            .success();
        serde_json::from_slice(&out.get_output().stdout).unwrap()
    };
    let votes_for = |t: &serde_json::Value, who: &str| -> f64 {
        t["counts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["target"] == who)
            .map_or(0.0, |c| c["votes"].as_f64().unwrap())
    };
    let before = tally();
    assert_eq!(votes_for(&before, "大灰狼"), 2.0);

    // Killed in the night after the day-2 close: day 2 is unchanged.
    let out = change(
        &cfg,
        &[
            "--at",
            "2026-11-29 22:00",
            "eliminate",
            "大灰狼",
            "--cause",
            "夜杀",
        ],
    );
    assert!(out.contains("大灰狼 — 未配置身份 — 出局：夜杀"), "{out}");
    assert_eq!(tally()["counts"], before["counts"]);

    // Recorded instead as killed the night before day 2: votes for 大灰狼 are void ("已出局")
    // and 大灰狼's own ballots count for nobody.
    change(&cfg, &["undo"]);
    change(
        &cfg,
        &[
            "--at",
            "2026-11-29 08:00",
            "eliminate",
            "大灰狼",
            "--cause",
            "夜杀",
        ],
    );
    let after = tally();
    assert_eq!(votes_for(&after, "大灰狼"), 0.0, "{}", after["counts"]);
    assert!(after["ballots"]
        .as_array()
        .unwrap()
        .iter()
        .any(|b| b["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("无效：大灰狼 已出局"))));
    assert!(!after["counts"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["voters"].as_array().unwrap())
        .any(|v| v["voter"] == "大灰狼"));

    // A time the judge cannot have meant is refused, naming the option.
    Command::cargo_bin("bansha")
        .unwrap()
        .args(["change", "--config"])
        .arg(&cfg)
        .args(["--at", "明早", "eliminate", "小飞", "--cause", "夜杀"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--at"));
}

/// (seed file, line, text on the line): the rule a case cites is there.
fn cite_seed(file: &str, line: usize, text: &str) {
    let seed = std::fs::read_to_string(common::fixtures().join("seeds").join(file)).unwrap();
    assert!(
        seed.lines().nth(line - 1).unwrap().contains(text),
        "{file}:{line}"
    );
}

/// Issue 29 item 8: `change fact` refuses a fact no rule of the game reads (the name the qipan
/// preset used to give, 连续未杀人夜数: 003 L49 counts nights without a kill in all, and the
/// preset's conditions read 未杀人夜数), listing in Chinese the facts that are read; nothing is
/// recorded. The judge may keep a fact of their own with `--free`.
#[test]
fn a_fact_no_rule_reads_is_refused_unless_free() {
    let dir = tempfile::tempdir().unwrap();
    let g = write_game(
        dir.path(),
        "qipan",
        &[
            ("甲", "主杀", "杀手"),
            ("乙", "平民", "好人"),
            ("丙", "平民", "好人"),
        ],
    );
    let out = Command::cargo_bin("bansha")
        .unwrap()
        .args(["change", "--config"])
        .arg(&g)
        .args(["fact", "连续未杀人夜数", "1"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("没有哪条规则读“连续未杀人夜数”")
            && err.contains("本局规则读的事实：未杀人夜数"),
        "{err}"
    );
    assert!(err.contains("--free"), "{err}");
    assert!(
        !dir.path().join("qipan.state.json").exists(),
        "nothing recorded"
    );
    // A fact the conditions read is taken as before.
    let out = change(&g, &["fact", "未杀人夜数", "1"]);
    assert_eq!(
        alerts(&out),
        ["【提醒】杀手已有一个夜晚杀不到人，再有一夜即负"]
    );
    // The judge's own note, said to be theirs.
    let out = change(&g, &["fact", "连续未杀人夜数", "1", "--free"]);
    assert!(out.contains("已记录"), "{out}");
    // jiaohui: the facts its protections and pardons set and read are listed too.
    let j = write_game(
        dir.path(),
        "jiaohui",
        &[("甲", "僧侣", "僧侣"), ("乙", "异教徒", "异教徒")],
    );
    let out = Command::cargo_bin("bansha")
        .unwrap()
        .args(["change", "--config"])
        .arg(&j)
        .args(["fact", "特赦用过", "1"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    for read in [
        "特赦已用",
        "背德的徽章已损坏",
        "黑暗领主权力已用完",
        "已找到全部存活僧侣",
    ] {
        assert!(err.contains(read), "{read}: {err}");
    }
}

/// Issue 30: who is out comes from the record; `dead` in a day block is the judge's override,
/// which `check-config` shows beside what the state says, warning where they differ.
#[test]
fn check_config_shows_dead_beside_the_record_and_warns_where_they_differ() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_game(dir.path(), "m103", &M103);
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(
        "[[days]]\nday = 3\nvote_thread = 4\ncloses_at = \"2026-11-30 21:00:00\"\ndead = [\"妃一\"]\n",
    );
    std::fs::write(&config, text).unwrap();
    // Day 2's vote put 刺一 out (stamped at its close); a night death of 妃二 before day 3.
    change(
        &config,
        &[
            "--at",
            "2026-11-29 21:00:00",
            "eliminate",
            "刺一",
            "--cause",
            "投票出局",
        ],
    );
    change(
        &config,
        &[
            "--at",
            "2026-11-30 08:00:00",
            "eliminate",
            "妃二",
            "--cause",
            "夜晚被杀",
        ],
    );
    let out = Command::cargo_bin("bansha")
        .unwrap()
        .args(["check-config"])
        .arg(&config)
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        stdout.contains("第2天 已出局：配置 dead = 无；局面记录 无"),
        "{stdout}"
    );
    assert!(
        stdout.contains("第3天 已出局：配置 dead = 妃一；局面记录 刺一、妃二"),
        "{stdout}"
    );
    assert!(
        stderr.contains(
            "第3天 配置的 dead 与局面记录不一致：只在配置里：妃一；只在局面记录里：刺一、妃二"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("第2天 配置的 dead"), "{stderr}");
}
