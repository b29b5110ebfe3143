//! An m103 night through the daemon (issue 34). m103's players send their night actions to the
//! 导演 by QQ (002 L215 "法官会通过QQ等联系工具", L217): the judge enters them on the dashboard,
//! in headless Chromium, and confirms the night by its button. Each night power has 30 minutes
//! after the close (行动时限, L234–L239; the preset's `deadline_after_close_minutes = 30`); the
//! 密探 sends nothing, which is 放弃 (L237) and, the power being one the role must use, a
//! missed duty (违规判定 5(3), L316): it reaches the discipline ledger by itself, no
//! `missed_night_moves` typed in the config. The night's dead is out of the next day.

use crate::support::*;

fn unix(t: &str) -> i64 {
    chrono::DateTime::parse_from_str(&format!("{t} +0800"), "%Y-%m-%d %H:%M %z")
        .unwrap()
        .timestamp()
}

/// The 14 seats of 002 L13 on the captured roster (龙舌 and 青鸾花 out before day 2): 4 卧底刺客,
/// 大内密探, 妙手太医, 御前侍卫, 东宫太子, 牵线红娘 (her lovers, two 宠妃, chosen on the first
/// night, L142), 4 绝色宠妃, 至尊帝王.
const ROLES: &str = "[roster.roles]\n\
    \"大灰狼\" = { role = \"卧底刺客\", faction = \"杀了狗皇帝\" }\n\
    \"李逵\" = { role = \"卧底刺客\", faction = \"杀了狗皇帝\" }\n\
    \"冷雪\" = { role = \"卧底刺客\", faction = \"杀了狗皇帝\" }\n\
    \"龙舌\" = { role = \"卧底刺客\", faction = \"杀了狗皇帝\" }\n\
    \"不见\" = { role = \"大内密探\", faction = \"我爱皇帝\" }\n\
    \"花千树\" = { role = \"妙手太医\", faction = \"我爱皇帝\" }\n\
    \"小飞\" = { role = \"御前侍卫\", faction = \"我爱皇帝\" }\n\
    \"蝈蝈\" = { role = \"东宫太子\", faction = \"我爱皇帝\" }\n\
    \"小熊维尼\" = { role = \"牵线红娘\", faction = \"我爱皇帝\" }\n\
    \"超人\" = { role = \"绝色宠妃\", faction = \"我爱皇帝\", marks = [\"情侣\"] }\n\
    \"音乐虫子\" = { role = \"绝色宠妃\", faction = \"我爱皇帝\", marks = [\"情侣\"] }\n\
    \"yucca\" = { role = \"绝色宠妃\", faction = \"我爱皇帝\" }\n\
    \"青鸾花\" = { role = \"绝色宠妃\", faction = \"我爱皇帝\" }\n\
    \"雪罂子\" = { role = \"至尊帝王\", faction = \"我爱皇帝\" }\n";

/// The judge enters one action on the dashboard's night form and waits for the reloaded page
/// to list it.
fn enter(b: &mut crate::browser::Browser, by: &str, power: &str, target: &str) {
    b.eval(&format!(
        "var f = document.querySelector('form.night-add'); f.by.value = {}; f.power.value = {}; \
         f.target.value = {}; f.querySelector('button').click()",
        serde_json::json!(by),
        serde_json::json!(power),
        serde_json::json!(target)
    ));
    let shown = format!("{by} {power} {target}").trim().to_string();
    b.wait(
        &format!(
            "[...document.querySelectorAll('section.night li')].some(x => x.textContent.includes({}))",
            serde_json::json!(shown)
        ),
        std::time::Duration::from_secs(20),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_m103_night_entered_on_the_dashboard_kills_and_its_missed_power_reaches_the_ledger() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let port = pin_status_port(&config);
    let game = dir.path().join("games/banshayishi-12.toml");
    std::fs::write(
        &game,
        format!(
            "ruleset = \"m103\"\nname = \"宫廷局\"\nid = \"m103\"\n{}\n{ROLES}\
             [[days]]\nday = 2\nvote_thread = 3\ndiscussion_threads = [4]\n\
             closes_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n\
             [[days]]\nday = 3\nvote_thread = 4\ndiscussion_threads = [4]\n\
             opens_at = \"2026-11-30 09:00:00\"\ncloses_at = \"2026-11-30 21:00:00\"\n",
            crate::common::ROSTER
        ),
    )
    .unwrap();
    // Day 2's final: the night opens (the preset names the m103 resolver, the game has roles).
    forum.lock().unwrap().at = unix("2026-11-29 21:00") + 5;
    let r = cycle_at(&config, "2026-11-29 21:00:05").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    assert_eq!(
        mails_about(&mailbox, "发言统计").len(),
        1,
        "day 2's end-of-day mail: {:?}",
        subject_lines(&mailbox)
    );

    // The reminder within the 30 minutes names who owes a power (L235 "夜晚侍卫、密探、太医、刺客或
    // 黑情侣需要发动技能"), not the 宠妃, 帝王, 太子 or 红娘, who have none at night.
    let reminders = mails_about(&mailbox, "第2夜 还有");
    assert_eq!(reminders.len(), 1, "{:?}", subject_lines(&mailbox));
    let owed = &reminders[0].1;
    for owes in ["小飞", "不见", "大灰狼", "冷雪"] {
        assert!(owed.contains(owes), "{owes}: {owed}");
    }
    // The 太医's own limit is later (L238): she is reminded before it.
    assert!(!owed.contains("花千树"), "{owed}");
    for none in ["雪罂子", "yucca", "超人", "蝈蝈", "小熊维尼"] {
        assert!(!owed.contains(none), "{none}: {owed}");
    }

    // 21:15, within the 30 minutes: what reached the judge by QQ, entered on the dashboard. The
    // 侍卫 guards 蝈蝈 (L127, L224), the 刺客 name yucca (L138, L225); the 密探 不见 never writes
    // (L237).
    let (mut child, _) = start_service(&config, Some("2026-11-29 21:15:00")).await;
    // The judge first confirms the day: 李逵, a 刺客, voted out at the close (L61), is no longer
    // of the night's kill group.
    let (code, out, err) = tokio::task::block_in_place(|| {
        cli(
            &game,
            &[
                "confirm",
                "--day",
                "2",
                "--daemon",
                config.to_str().unwrap(),
            ],
        )
    });
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("李逵"), "{out}");
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    assert!(page.contains("第2夜"), "{page}");
    assert!(
        !page.contains("确认第 2 夜结算"),
        "no confirming before the deadline (L236–L237): {page}"
    );
    tokio::task::block_in_place(|| {
        let mut b = crate::browser::Browser::launch(&dir.path().join("cdp"));
        b.open(
            &format!("http://127.0.0.1:{port}/"),
            "!!document.querySelector('form.night-add')",
        );
        enter(&mut b, "小飞", "守卫", "蝈蝈");
        enter(&mut b, "大灰狼", "指杀", "yucca");
        // The judge gives the 太医 her 通灵 feedback (L119: yucca was named) and enters it: her
        // 30 minutes run from now (L238).
        enter(&mut b, "花千树", "通灵", "");
    });
    child.kill().unwrap();
    child.wait().unwrap();

    // 21:30, the limit of all but the 太医, who has not answered: hers runs 30 minutes from her
    // 通灵 feedback (L238), to 21:45, so no draft yet, and she alone is reminded.
    cycle_at(&config, "2026-11-29 21:30:05").await;
    assert!(
        mails_about(&mailbox, "第2夜结算草稿").is_empty(),
        "{:?}",
        subject_lines(&mailbox)
    );
    let reminders = mails_about(&mailbox, "第2夜 还有");
    assert_eq!(reminders.len(), 2, "{:?}", subject_lines(&mailbox));
    assert!(
        reminders[1].0.contains("还有 1 人没有行动") && reminders[1].1.contains("11-29 21:45 截止"),
        "{:?}",
        reminders[1]
    );
    assert!(reminders[1].1.contains("：花千树。"), "{}", reminders[1].1);
    // 21:40: no confirming while she may still answer; her answer (she does nothing) entered.
    let (mut child, _) = start_service(&config, Some("2026-11-29 21:40:00")).await;
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    assert!(!page.contains("确认第 2 夜结算"), "{page}");
    assert!(page.contains("行动截止 11-29 21:45"), "{page}");
    tokio::task::block_in_place(|| {
        let mut b = crate::browser::Browser::launch(&dir.path().join("cdp"));
        b.open(
            &format!("http://127.0.0.1:{port}/"),
            "!!document.querySelector('form.night-add')",
        );
        enter(&mut b, "花千树", "放弃", "");
    });
    child.kill().unwrap();
    child.wait().unwrap();

    // The next cycle: everyone past his limit or answered, the draft; nothing written yet.
    cycle_at(&config, "2026-11-29 21:45:00").await;
    let drafts = mails_about(&mailbox, "第2夜结算草稿");
    assert_eq!(drafts.len(), 1, "{:?}", subject_lines(&mailbox));
    let draft = &drafts[0].1;
    assert!(draft.contains("yucca"), "{draft}");
    assert!(
        draft.contains("不见 未在时限内行动"),
        "the 密探's missed power (L237, L316): {draft}"
    );
    for acted in [
        "小飞 未在",
        "花千树 未在",
        "大灰狼 未在",
        "冷雪 未在",
        "李逵",
    ] {
        assert!(!draft.contains(acted), "{acted}: {draft}");
    }
    let state = game.with_file_name("banshayishi-12.state.json");
    let before = std::fs::read_to_string(&state).unwrap_or_default();
    assert!(
        !before.contains("missed:"),
        "not written before the judge confirms"
    );

    // 21:50: confirmed by its button.
    let (mut child, _) = start_service(&config, Some("2026-11-29 21:50:00")).await;
    tokio::task::block_in_place(|| {
        let mut b = crate::browser::Browser::launch(&dir.path().join("cdp"));
        let ready = "[...document.querySelectorAll('button')].some(x => x.textContent.includes('确认第 2 夜结算'))";
        b.open(&format!("http://127.0.0.1:{port}/"), ready);
        if let Ok(dir) = std::env::var("BANSHA_SCREENSHOTS") {
            b.screenshot(&std::path::Path::new(&dir).join("dashboard-night-m103.png"));
        }
        b.eval("[...document.querySelectorAll('button')].find(x => x.textContent.includes('确认第 2 夜结算')).click()");
        b.wait(
            "document.body.innerText.includes('已确认，已写入局面') || !document.body.innerText.includes('确认第 2 夜结算')",
            std::time::Duration::from_secs(20),
        );
    });
    let after: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    let text = after.to_string();
    assert!(text.contains("第2夜：被指杀（大灰狼）"), "{text}");
    assert!(text.contains("missed:2:不见"), "{text}");
    assert!(text.contains("guarded:蝈蝈"), "L127 once a game: {text}");
    for acted in ["小飞", "花千树", "大灰狼", "李逵", "冷雪"] {
        assert!(!text.contains(&format!("missed:2:{acted}")), "{text}");
    }
    child.kill().unwrap();
    child.wait().unwrap();

    // Day 3's final and end-of-day mail: yucca, killed in the night, is out of the day (no
    // ballot owed, no post count); 不见's missed power stands in the ledger as day 2's duty.
    forum.lock().unwrap().at = unix("2026-11-30 21:00") + 5;
    let r = cycle_at(&config, "2026-11-30 21:00:05").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let day3 = final_texts(&mailbox)
        .into_iter()
        .find(|t| t.contains("第3天"))
        .expect("day 3's final");
    // 14 seats, 龙舌 and 青鸾花 out before day 2, 李逵 voted out on day 2, yucca killed in night 2.
    assert!(day3.contains("存活玩家：10 人"), "{day3}");
    let owed = day3
        .lines()
        .find(|l| l.contains("[b]未投票[/b]"))
        .unwrap_or_default();
    assert!(owed.contains("不见（未投票"), "{day3}");
    assert!(
        !owed.contains("yucca"),
        "the night's dead owes no ballot: {day3}"
    );
    let ledgers = mails_about(&mailbox, "第3天 发言统计");
    assert_eq!(ledgers.len(), 1, "{:?}", subject_lines(&mailbox));
    let ledger = &ledgers[0].1;
    let (count, _) = ledger
        .split_once("[b]违规记录[/b]")
        .expect("the ledger under the day's count");
    assert!(
        count.contains("不见 0 帖") && !count.contains("yucca"),
        "the night's dead is not counted on day 3: {ledger}"
    );
    assert!(
        entries_of(ledger, "不见")
            .iter()
            .any(|l| l.contains("第2天") && l.contains("没有在规定时间内行使夜间行动")),
        "the 密探's missed power in the ledger, on day 2 (L316): {ledger}"
    );
    for acted in ["小飞", "花千树", "大灰狼", "冷雪"] {
        assert!(
            !entries_of(ledger, acted)
                .iter()
                .any(|l| l.contains("夜间行动")),
            "{acted} acted: {ledger}"
        );
    }
}

/// A player's entries in a mail's ledger (`[b]违规记录[/b]`: "NAME：…", then an indented line
/// each).
pub(crate) fn entries_of(mail: &str, player: &str) -> Vec<String> {
    let Some((_, ledger)) = mail.split_once("[b]违规记录[/b]") else {
        return Vec::new();
    };
    ledger
        .lines()
        .skip_while(|l| !l.starts_with(&format!("{player}：")))
        .skip(1)
        .take_while(|l| l.starts_with(' '))
        .map(str::to_string)
        .collect()
}
