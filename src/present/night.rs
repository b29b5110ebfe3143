//! The night's resolution as the judge reads it (Chinese, judge-only: it names roles, states and
//! who acted): deaths with causes, states, what each player is told, the next day's
//! adjustments, powers used, readings used, refused and late actions with the reasons, the
//! dawn post to paste, wins. Generic over resolvers: it shows the [`Resolution`]'s fields.

use crate::domain::night::{Action, Resolution};

/// The resolution as text for the terminal.
pub fn text(res: &Resolution) -> String {
    let mut s = format!("第{}夜结算（仅法官可见）\n", res.night);
    section(
        &mut s,
        "死亡",
        res.deaths
            .iter()
            .map(|d| format!("{}：{}", d.player, d.cause)),
        "无人死亡",
    );
    section(
        &mut s,
        "当夜状态",
        res.states
            .iter()
            .map(|l| format!("{}：{}（{}）", l.player, l.state, l.why)),
        "无",
    );
    if !res.figures.is_empty() {
        section(
            &mut s,
            "攻击力与防御力",
            res.figures.iter().map(|f| {
                format!(
                    "{}：攻击 {}，防御 {}（{}）",
                    f.player, f.attack, f.defence, f.detail
                )
            }),
            "无",
        );
    }
    section(
        &mut s,
        "私信反馈（发给各玩家）",
        res.feedback
            .iter()
            .map(|f| format!("→ {}：{}", f.to, f.text)),
        "无",
    );
    let nd = &res.next_day;
    let mut next: Vec<String> = nd
        .adjust
        .iter()
        .map(|(p, v)| format!("{p}：{}（只计入第一轮投票）", signed(*v)))
        .collect();
    if !nd.half_voters.is_empty() {
        next.push(format!("半票：{}", nd.half_voters.join("、")));
    }
    if !nd.missed.is_empty() {
        next.push(format!("未行动（计入纪律）：{}", nd.missed.join("、")));
    }
    section(&mut s, "带入次日", next.into_iter(), "无");
    section(
        &mut s,
        "行使的特权",
        res.powers_used
            .iter()
            .map(|u| format!("{}：{}", u.player, u.power)),
        "无",
    );
    section(
        &mut s,
        "记入局面的事实",
        res.facts.iter().map(|(k, v)| format!("{k} = {v}")),
        "无",
    );
    section(
        &mut s,
        "本夜用到的读法（[night.readings]）",
        res.readings_used
            .iter()
            .map(|r| format!("{} {} = \"{}\"：{}", r.id, r.key, r.reading, r.decided)),
        "无",
    );
    section(
        &mut s,
        "不予结算的行动",
        res.refused
            .iter()
            .map(|r| format!("{}：{}", action(&r.action), r.reason)),
        "无",
    );
    section(
        &mut s,
        "迟到的行动（截止后寄出，不结算）",
        res.late.iter().map(action),
        "无",
    );
    section(&mut s, "请法官留意", res.for_judge.iter().cloned(), "无");
    section(&mut s, "胜负", res.win.iter().cloned(), "尚无胜负");
    s.push_str("\n【天亮公告】（BBCode，复制下面两行之间的内容发帖）\n");
    s.push_str("------------------------------------------------------------\n");
    s.push_str(&res.announce);
    if !res.announce.ends_with('\n') {
        s.push('\n');
    }
    s.push_str("------------------------------------------------------------\n");
    if res.announce.contains("（杀人帖：请在此贴上") {
        s.push_str(
            "注意：公告中的（杀人帖…）行要换成杀人帖原文再发（或用 --kill-post 杀手=文件）。\n",
        );
    }
    s
}

fn section(s: &mut String, title: &str, lines: impl Iterator<Item = String>, none: &str) {
    s.push_str(&format!("\n【{title}】\n"));
    let mut any = false;
    for l in lines {
        any = true;
        s.push_str(&format!("  {l}\n"));
    }
    if !any {
        s.push_str(&format!("  {none}\n"));
    }
}

fn signed(v: i32) -> String {
    if v > 0 {
        format!("+{v} 票")
    } else {
        format!("−{} 票", -v)
    }
}

/// An action as one line: source, who, power, target.
pub fn action(a: &Action) -> String {
    let mut s = format!("{}：{} {}", a.source, a.by.join("、"), a.power);
    if let Some(t) = &a.target {
        s += &format!(" {t}");
    }
    if let Some(p) = &a.platform {
        s += &format!("（炮架子 {p}）");
    }
    if let Some(t) = a.sent_at {
        s += &format!("，{} 寄出", t.format("%m-%d %H:%M:%S"));
    }
    s
}
