//! qipan (seed 003): a night on the judge's map. The order is the seed's (L14, L77): the good
//! players move (one cell N/S/E/W, L24), the judge tells the killers (L48), the killers move (one
//! cell in eight directions, L36) and the acting killer kills on his cell or one around it
//! (L42, L46), then every item is used at once (L77). Positions, items, traps and the count of
//! nights without a kill are facts, so they carry to the next night:
//! - `位置:<player>` = row × 100 + column (the map's "C2" is 203);
//! - `得到:<player>:<item>`, `用掉:<player>:<item>`, `拾取:<cell>:<item>`: items picked and used;
//! - `陷阱:<cell>`: traps lying there; `停留:<player>` = the night he may not move (L71);
//! - `无路:<player>:<direction>` = the cell a move that way failed from (L32);
//! - `未杀人夜数`: nights without a kill (L49), which the preset's loss rule reads.
//!
//! Actions: 移动 (target a direction in the player's words: "向东", "东", "往北走"; a power that
//! is itself a direction is a move too), 杀人 (target a player), and each item by its name
//! (解毒药 → a player, 光照魔法 → a cell, 探路灯 → a direction, 客栈, 隐身, 扫帚魔法 → a
//! direction, 陷阱 → a cell, the holder's own by default).

use super::{last_of_each, Action, Choice, Death, Feedback, Night, PowerUse, Resolution, Resolver};
use crate::config::{NightMap, NightRules};
use crate::rules::state::Seat;
use std::collections::{BTreeMap, BTreeSet};

type Cell = (i32, i32);

const NO_KILL: Choice = Choice {
    key: "no_kill_nights",
    id: "A-Q1",
    lines: "003 L49 \"如杀手出现2个以上的夜晚杀不到人（即使使用了道具），则判杀手输\"",
    readings: &[
        (
            "every_night",
            "每个无人被杀的夜晚都算（客栈之夜、解毒药救下的夜晚也算）",
        ),
        ("inn_not_counted", "杀手用客栈停止攻击的夜晚不算"),
    ],
    default: "every_night",
};
const BROOM: Choice = Choice {
    key: "broom_timing",
    id: "A-Q2",
    lines: "003 L67 \"扫帚魔法——跨越1格障碍墙\"; L77 \"好人移动、杀手移动杀人，之后是…使用道具\"",
    readings: &[
        (
            "after_kills",
            "和其他道具一样在杀人之后使用：副杀杀人后再跨墙",
        ),
        ("with_move", "当作副杀本夜的移动：跨墙后再杀人"),
    ],
    default: "after_kills",
};
const SAME_NIGHT: Choice = Choice {
    key: "item_same_night",
    id: "A-Q3",
    lines: "003 L75 \"才可在其后任何一个夜晚使用该道具\"",
    readings: &[
        ("next_night", "捡到的当夜不能用，其后的夜晚才能用"),
        ("same_night", "捡到的当夜（移动之后）就能用"),
    ],
    default: "next_night",
};
const KILLED_HOLDER: Choice = Choice {
    key: "holder_killed_item",
    id: "A-Q4",
    lines: "003 L75 \"在未使用道具时即被杀或被投，则该道具作废\"; L77 道具在杀人之后使用",
    readings: &[
        ("void", "持有者当夜被杀，道具作废（杀人在使用道具之前）"),
        ("usable", "同一夜的道具照样生效（例如给自己用解毒药）"),
    ],
    default: "void",
};

const CHOICES: &[Choice] = &[NO_KILL, BROOM, SAME_NIGHT, KILLED_HOLDER];

/// The items (L59–L71) and who may use them.
const GOOD_ITEMS: &[&str] = &["解毒药", "光照魔法", "探路灯", "陷阱"];
const KILLER_ITEMS: &[&str] = &["客栈", "隐身", "扫帚魔法", "陷阱"];
const ITEMS: &[&str] = &[
    "解毒药",
    "光照魔法",
    "探路灯",
    "客栈",
    "隐身",
    "扫帚魔法",
    "陷阱",
];

/// The fact counting nights without a kill (the preset's loss rule reads it).
pub const NO_KILL_NIGHTS: &str = "未杀人夜数";

#[derive(Default)]
pub struct Qipan {
    map: Option<Map>,
    /// How long before the night's deadline the good players' moves are due (L114).
    good_moves_early: Option<chrono::Duration>,
}

/// The map, read from `[night.map]`.
#[derive(Debug, Clone)]
struct Map {
    cells: BTreeSet<Cell>,
    start: BTreeMap<String, Cell>,
    items: BTreeMap<Cell, Vec<String>>,
    held: BTreeMap<String, Vec<String>>,
}

/// "C2" for row 2, column 3.
pub fn cell_name((r, c): Cell) -> String {
    let col = char::from(b'A' + u8::try_from(c - 1).unwrap_or(0));
    format!("{col}{r}")
}

fn parse_cell(text: &str) -> Option<Cell> {
    let t = text.trim().to_uppercase();
    let mut chars = t.chars();
    let col = chars.next()?;
    if !col.is_ascii_uppercase() {
        return None;
    }
    let row: i32 = chars.as_str().parse().ok()?;
    Some((row, i32::from(col as u8 - b'A') + 1))
}

fn cell_code((r, c): Cell) -> f64 {
    f64::from(r * 100 + c)
}

fn code_cell(v: f64) -> Option<Cell> {
    if v <= 0.0 {
        return None;
    }
    let v = v as i32;
    Some((v / 100, v % 100))
}

fn read_map(m: &NightMap) -> Result<Map, String> {
    let mut cells = BTreeSet::new();
    for (i, line) in m.grid.iter().enumerate() {
        for (j, ch) in line.chars().enumerate() {
            let cell = (i as i32 + 1, j as i32 + 1);
            match ch {
                '.' | 'o' | 'O' | '□' => {
                    if j >= 26 {
                        return Err("night.map.grid：最多 26 列（列名 A–Z）".into());
                    }
                    cells.insert(cell);
                }
                '#' | ' ' | '　' | '■' | 'x' | 'X' => {}
                other => {
                    return Err(format!(
                        "night.map.grid 第 {} 行第 {} 个字符“{other}”：格子写 .，没有格子写 #",
                        i + 1,
                        j + 1
                    ))
                }
            }
        }
    }
    if cells.is_empty() {
        return Err("night.map.grid：地图上没有格子（格子写 .，003 L20 共有30个有效格子）".into());
    }
    let on_map = |key: &str, v: &str| -> Result<Cell, String> {
        parse_cell(v)
            .filter(|c| cells.contains(c))
            .ok_or_else(|| format!("{key} = \"{v}\"：不是地图上的格子（如 A1：列字母加行号）"))
    };
    let mut start = BTreeMap::new();
    for (p, v) in &m.start {
        start.insert(p.clone(), on_map(&format!("night.map.start.{p}"), v)?);
    }
    let mut items = BTreeMap::new();
    for (k, list) in &m.items {
        let c = on_map(&format!("night.map.items.{k}"), k)?;
        for it in list {
            if !GOOD_ITEMS.contains(&it.as_str()) {
                return Err(format!(
                    "night.map.items.{k}：“{it}”不是好人能捡的道具；可写：{}（003 L57–L71）",
                    GOOD_ITEMS.join("、")
                ));
            }
        }
        items.insert(c, list.clone());
    }
    for (p, list) in &m.held {
        if let Some(it) = list.iter().find(|it| !ITEMS.contains(&it.as_str())) {
            return Err(format!(
                "night.map.held.{p}：“{it}”不是道具；道具有：{}",
                ITEMS.join("、")
            ));
        }
    }
    Ok(Map {
        cells,
        start,
        items,
        held: m.held.clone(),
    })
}

/// A direction: rows grow southward, columns eastward.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Dir {
    dr: i32,
    dc: i32,
    zh: &'static str,
}

const DIRS: &[Dir] = &[
    Dir {
        dr: 0,
        dc: 1,
        zh: "东",
    },
    Dir {
        dr: 0,
        dc: -1,
        zh: "西",
    },
    Dir {
        dr: 1,
        dc: 0,
        zh: "南",
    },
    Dir {
        dr: -1,
        dc: 0,
        zh: "北",
    },
    Dir {
        dr: 1,
        dc: 1,
        zh: "东南",
    },
    Dir {
        dr: -1,
        dc: 1,
        zh: "东北",
    },
    Dir {
        dr: 1,
        dc: -1,
        zh: "西南",
    },
    Dir {
        dr: -1,
        dc: -1,
        zh: "西北",
    },
];

/// A direction in a player's words: "向东", "东", "往北走", "东北方向", "E".
fn parse_dir(text: &str) -> Option<Dir> {
    let core: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && !"向往朝走移动去方边面一格步。，.!！".contains(*c))
        .collect();
    let core = match core.to_uppercase().as_str() {
        "E" => "东".to_string(),
        "W" => "西".into(),
        "S" => "南".into(),
        "N" => "北".into(),
        "SE" => "东南".into(),
        "NE" => "东北".into(),
        "SW" => "西南".into(),
        "NW" => "西北".into(),
        _ => core,
    };
    DIRS.iter().copied().find(|d| d.zh == core)
}

fn step((r, c): Cell, d: Dir) -> Cell {
    (r + d.dr, c + d.dc)
}

/// A killer: of the 杀手 faction, or the 主杀 / 副杀 (003 L42).
pub fn is_killer(s: &Seat) -> bool {
    s.faction.contains("杀手") || matches!(s.role.trim(), "主杀" | "副杀")
}

/// The night's working record.
struct Work<'a, 'n> {
    night: &'a Night<'n>,
    map: &'a Map,
    res: Resolution,
    pos: BTreeMap<String, Cell>,
    /// Item counts gained and used this night.
    gained: BTreeMap<(String, String), f64>,
    spent: BTreeMap<(String, String), f64>,
    picked: BTreeMap<(Cell, String), f64>,
    picked_now: BTreeSet<(String, String)>,
    traps: BTreeMap<Cell, f64>,
    /// A killer stopped attacking with a 客栈 tonight (L65).
    inn: bool,
    announce: Vec<String>,
}

impl Work<'_, '_> {
    fn refuse(&mut self, action: &Action, reason: impl Into<String>) {
        self.res.refuse(action, reason);
    }
    fn reading(&mut self, c: &Choice, decided: impl Into<String>) -> String {
        let r = self.night.reading(c).to_string();
        self.res.note_reading(c, &r, decided);
        r
    }
    fn tell(&mut self, to: &str, text: String) {
        self.res.feedback.push(Feedback {
            to: to.into(),
            text,
        });
    }
    /// How many of `item` `player` holds now.
    fn holds(&self, player: &str, item: &str) -> f64 {
        let start = self
            .map
            .held
            .get(player)
            .map_or(0, |l| l.iter().filter(|i| *i == item).count()) as f64;
        let key = (player.to_string(), item.to_string());
        start + self.night.fact(&format!("得到:{player}:{item}"))
            - self.night.fact(&format!("用掉:{player}:{item}"))
            + self.gained.get(&key).copied().unwrap_or(0.0)
            - self.spent.get(&key).copied().unwrap_or(0.0)
    }
    fn trap_at(&self, c: Cell) -> f64 {
        self.traps
            .get(&c)
            .copied()
            .unwrap_or_else(|| self.night.fact(&format!("陷阱:{}", cell_name(c))))
    }
    fn alive(&self) -> Vec<&Seat> {
        self.night.seats.iter().filter(|s| s.alive).collect()
    }
}

impl Resolver for Qipan {
    fn choices(&self) -> &'static [Choice] {
        CHOICES
    }

    fn configure(&mut self, rules: &NightRules) -> Result<(), String> {
        let Some(m) = &rules.map else {
            return Err(
                "qipan 的夜晚要有地图：在游戏配置里写 [rules.night.map]（grid、start、items；003 L12 地图由法官画出）"
                    .into(),
            );
        };
        self.map = Some(read_map(m)?);
        if let (Some(end), Some(good)) = (
            rules.deadline_after_close_minutes,
            rules.good_moves_after_close_minutes,
        ) {
            if good > end {
                return Err(format!(
                    "night.good_moves_after_close_minutes = {good}：好人移动的截止不能晚于夜晚截止（deadline_after_close_minutes = {end}）"
                ));
            }
            self.good_moves_early = Some(chrono::Duration::minutes(i64::from(end - good)));
        }
        Ok(())
    }

    fn resolve(&self, night: &Night, actions: &[Action]) -> Resolution {
        let Some(map) = &self.map else {
            let mut res = Resolution::default();
            res.for_judge
                .push("没有地图（[rules.night.map]），夜晚无法结算".into());
            return res;
        };
        let mut w = Work {
            night,
            map,
            res: Resolution::default(),
            pos: BTreeMap::new(),
            gained: BTreeMap::new(),
            spent: BTreeMap::new(),
            picked: BTreeMap::new(),
            picked_now: BTreeSet::new(),
            traps: BTreeMap::new(),
            inn: false,
            announce: Vec::new(),
        };
        let acts = normalize(&mut w, actions, self.good_moves_early);
        positions(&mut w);
        let broom_moves = w.night.reading(&BROOM) == "with_move";
        moves(&mut w, &acts, false, broom_moves);
        tell_killers(&mut w);
        moves(&mut w, &acts, true, broom_moves);
        let victim = kill(&mut w, &acts);
        let saved = items(&mut w, &acts, victim.as_deref(), broom_moves);
        finish(&mut w, victim, saved);
        w.res
    }
}

/// Each action with a known living actor, a move in the players' words made a 移动, the last
/// of each counting (changes until the deadline; later ones are late).
fn normalize(w: &mut Work, actions: &[Action], early: Option<chrono::Duration>) -> Vec<Action> {
    let mut out = Vec::new();
    for a in actions {
        let mut a = a.clone();
        if parse_dir(&a.power).is_some() {
            a.target = Some(a.power.clone());
            a.power = "移动".into();
        }
        a.power = match a.power.trim() {
            "移动" | "移" | "走" | "行动" => "移动".into(),
            "杀人" | "杀" | "刺杀" => "杀人".into(),
            p if ITEMS.contains(&p) => p.to_string(),
            other => {
                let reason = format!(
                    "“{other}”不是本局的夜晚行动：可用 移动（东西南北）、杀人、{}",
                    ITEMS.join("、")
                );
                w.refuse(&a, reason);
                continue;
            }
        };
        if a.by.len() != 1 {
            w.refuse(&a, "每条行动只能由一人做出");
            continue;
        }
        let Some(seat) = w.night.seat(a.by[0].trim()) else {
            let reason = format!("{} 不是本局玩家", a.by[0]);
            w.refuse(&a, reason);
            continue;
        };
        if !seat.alive {
            let reason = format!("{} 已出局", seat.player);
            w.refuse(&a, reason);
            continue;
        }
        a.by = vec![seat.player.clone()];
        // L114: the good players' moves are due before the killers' night (L116).
        let due = w.night.deadline.zip(early).map(|(d, e)| d - e);
        if let (false, "移动", Some(t), Some(due)) =
            (is_killer(seat), a.power.as_str(), a.sent_at, due)
        {
            if t > due {
                w.res.late.push(a);
                continue;
            }
        }
        out.push(a);
    }
    let (kept, late) = last_of_each(&out, w.night.deadline);
    w.res.late.extend(late);
    kept
}

/// Where each living player stands at dusk: the last night's fact, else the map's start.
fn positions(w: &mut Work) {
    let seats: Vec<(String, f64)> = w
        .alive()
        .iter()
        .map(|s| {
            (
                s.player.clone(),
                w.night.fact(&format!("位置:{}", s.player)),
            )
        })
        .collect();
    for (p, f) in seats {
        let at = code_cell(f)
            .filter(|c| w.map.cells.contains(c))
            .or_else(|| w.map.start.get(&p).copied());
        match at {
            Some(c) => {
                w.pos.insert(p, c);
            }
            None => w.res.for_judge.push(format!(
                "{p} 不知道在哪一格：在 [rules.night.map.start] 写出他的出生地（003 L14）"
            )),
        }
    }
}

/// The good players' moves (`killers` false, L22–L32) or the killers' (L34–L36): one cell,
/// failing into no cell (L24); a trap holds its victim a night (L71); no move is a missed
/// duty (L130–L136).
fn moves(w: &mut Work, acts: &[Action], killers: bool, broom_moves: bool) {
    let seats: Vec<Seat> = w
        .alive()
        .into_iter()
        .filter(|s| is_killer(s) == killers)
        .cloned()
        .collect();
    let mut arrivals: BTreeMap<Cell, Vec<String>> = BTreeMap::new();
    for s in &seats {
        let p = s.player.as_str();
        let Some(from) = w.pos.get(p).copied() else {
            continue;
        };
        let mv = acts.iter().find(|a| a.by[0] == p && a.power == "移动");
        let broom = acts.iter().find(|a| a.by[0] == p && a.power == "扫帚魔法");
        if let (true, true, Some(b)) = (killers, broom_moves, broom) {
            if let Some(m) = mv {
                w.refuse(m, "本夜用扫帚魔法跨墙作为移动（A-Q2 with_move）");
            }
            let b = b.clone();
            jump(w, &b);
            continue;
        }
        if w.night.fact(&format!("停留:{p}")) == f64::from(w.night.number) {
            if let Some(m) = mv {
                w.refuse(m, "踩到陷阱，停留一天：本夜不能移动（003 L71）");
            }
            w.tell(p, "你踩到了陷阱，本夜停留在原地（003 L71）".into());
            continue;
        }
        let Some(m) = mv else {
            w.res.next_day.missed.push(p.to_string());
            continue;
        };
        let Some(d) = m.target.as_deref().and_then(parse_dir) else {
            let reason = format!(
                "看不出方向“{}”：写 东、西、南、北{}",
                m.target.clone().unwrap_or_default(),
                if killers {
                    "、东南、东北、西南、西北"
                } else {
                    ""
                }
            );
            w.refuse(m, reason);
            w.res.next_day.missed.push(p.to_string());
            continue;
        };
        if !killers && d.dr != 0 && d.dc != 0 {
            w.refuse(m, "好人只能向东、西、南、北中的一个方向移动（003 L24）");
            w.res.next_day.missed.push(p.to_string());
            continue;
        }
        let key = format!("无路:{p}:{}", d.zh);
        if !killers && w.night.fact(&key) == cell_code(from) {
            w.res.for_judge.push(format!(
                "{p} 又向{}走：此前已知从 {} 向{}无路（003 L32 不得故意停留；罚则规则未写，由法官定）",
                d.zh,
                cell_name(from),
                d.zh
            ));
        }
        let to = step(from, d);
        if !w.map.cells.contains(&to) {
            w.res.facts.insert(key, cell_code(from));
            w.tell(p, "移动失败，原地停留（003 L28）".into());
            continue;
        }
        corner(w, from, to, &format!("{p} 斜向移动"));
        w.pos.insert(p.to_string(), to);
        w.tell(
            p,
            format!("移动成功，你现在位于{}区域（003 L27）", cell_name(to)),
        );
        arrivals.entry(to).or_default().push(p.to_string());
    }
    for (cell, who) in arrivals {
        traps(w, cell, &who);
        if !killers {
            pick_up(w, cell, &who);
        }
    }
}

/// L71 "踩到陷阱的玩家停留一天": each trap on the cell holds one arriving player the next night.
fn traps(w: &mut Work, cell: Cell, who: &[String]) {
    let mut left = w.trap_at(cell);
    for p in who {
        if left < 1.0 {
            break;
        }
        left -= 1.0;
        w.res
            .facts
            .insert(format!("停留:{p}"), f64::from(w.night.number + 1));
        w.tell(p, "你踩到了陷阱，下一夜停留一天（003 L71）".into());
        w.res.for_judge.push(format!(
            "{p} 在 {} 踩到陷阱：下一夜不能移动；陷阱用掉一个（A-Q6 规则未写，按一个陷阱困一人、杀手与放置者同样会踩到处理，可改判）",
            cell_name(cell)
        ));
    }
    w.traps.insert(cell, left);
}

/// A-Q7: a diagonal step between two cells whose two shared neighbours are both walls. L46
/// "斜线也算路径为1" allows it as written; the judge is told, since the seed says nothing of walls.
fn corner(w: &mut Work, from: Cell, to: Cell, what: &str) {
    if from.0 == to.0 || from.1 == to.1 {
        return;
    }
    let (a, b) = ((from.0, to.1), (to.0, from.1));
    if !w.map.cells.contains(&a) && !w.map.cells.contains(&b) {
        w.res.for_judge.push(format!(
            "{what}：{} 到 {} 两侧都是墙（A-Q7，规则未写；按 003 L46 “斜线也算路径为1” 放行，可改判）",
            cell_name(from),
            cell_name(to)
        ));
    }
}

/// L29 "该格子上有好人可以捡起的道具…你拿到了XX道具"; L79: two arriving at once is the judge's
/// formula.
fn pick_up(w: &mut Work, cell: Cell, who: &[String]) {
    let Some(items) = w.map.items.get(&cell).cloned() else {
        return;
    };
    let mut left: Vec<String> = Vec::new();
    let mut seen: BTreeMap<String, f64> = BTreeMap::new();
    for it in items {
        let n = seen.entry(it.clone()).or_insert(0.0);
        *n += 1.0;
        let taken = w.night.fact(&format!("拾取:{}:{it}", cell_name(cell)))
            + w.picked.get(&(cell, it.clone())).copied().unwrap_or(0.0);
        if *n > taken {
            left.push(it);
        }
    }
    if left.is_empty() {
        return;
    }
    if who.len() > 1 {
        w.res.for_judge.push(format!(
            "{} 同时走到 {}，该格有道具 {}：由法官按事先定好的公式决定谁获得（003 L79），本次结算没有给任何人",
            who.join("、"),
            cell_name(cell),
            left.join("、")
        ));
        return;
    }
    let p = &who[0];
    for it in left {
        *w.picked.entry((cell, it.clone())).or_default() += 1.0;
        *w.gained.entry((p.clone(), it.clone())).or_default() += 1.0;
        w.picked_now.insert((p.clone(), it.clone()));
        w.tell(p, format!("经过法官一致判定，你拿到了{it}道具（003 L29）"));
    }
}

/// L48 注1 "法官把好人的移动情况告诉杀手".
fn tell_killers(w: &mut Work) {
    let good: Vec<String> = w
        .alive()
        .iter()
        .filter(|s| !is_killer(s))
        .filter_map(|s| {
            w.pos
                .get(&s.player)
                .map(|c| format!("{} 在 {}", s.player, cell_name(*c)))
        })
        .collect();
    let killers: Vec<String> = w
        .alive()
        .iter()
        .filter(|s| is_killer(s))
        .map(|s| s.player.clone())
        .collect();
    for k in killers {
        w.tell(
            &k,
            format!("好人移动后的位置（003 L48）：{}", good.join("、")),
        );
    }
}

/// The killer who kills tonight: the 主杀, the 副杀 once the 主杀 is out (L42).
fn acting_killer(w: &Work) -> Option<String> {
    let alive = w.alive();
    alive
        .iter()
        .find(|s| s.role.trim() == "主杀")
        .or_else(|| alive.iter().find(|s| s.role.trim() == "副杀"))
        .or_else(|| alive.iter().find(|s| is_killer(s)))
        .map(|s| s.player.clone())
}

/// Whether a killer uses a 客栈 he holds tonight (L65 "杀手停止攻击一晚").
fn inn_used(w: &Work, acts: &[Action]) -> bool {
    acts.iter().any(|a| {
        a.power == "客栈"
            && w.night.seat(&a.by[0]).is_some_and(is_killer)
            && w.holds(&a.by[0], "客栈") >= 1.0
    })
}

/// L45–L46: the acting killer kills a good player on his own cell or one of the eight around.
fn kill(w: &mut Work, acts: &[Action]) -> Option<String> {
    let acting = acting_killer(w);
    let inn = inn_used(w, acts);
    w.inn = inn;
    let mut victim = None;
    for a in acts.iter().filter(|a| a.power == "杀人") {
        if Some(&a.by[0]) != acting.as_ref() {
            w.refuse(
                a,
                "杀人由主杀负责，主杀出局后由副杀继续（003 L42）：这个玩家本夜不能杀人",
            );
            continue;
        }
        if inn {
            w.refuse(a, "杀手本夜用了客栈，停止攻击一晚（003 L65）");
            continue;
        }
        let Some(t) = a
            .target
            .as_deref()
            .and_then(|t| w.night.seat(t.trim()))
            .cloned()
        else {
            let reason = format!("“{}”不是本局玩家", a.target.clone().unwrap_or_default());
            w.refuse(a, reason);
            continue;
        };
        if !t.alive || is_killer(&t) {
            let reason = format!("{} 已出局或是杀手：杀手只杀存活的好人（003 L46）", t.player);
            w.refuse(a, reason);
            continue;
        }
        let (Some(k), Some(v)) = (w.pos.get(&a.by[0]).copied(), w.pos.get(&t.player).copied())
        else {
            w.refuse(
                a,
                "杀手或目标不知道在哪一格（[rules.night.map] start），无法判断范围",
            );
            continue;
        };
        if (k.0 - v.0).abs() > 1 || (k.1 - v.1).abs() > 1 {
            w.refuse(
                a,
                format!(
                    "{} 在 {}，不在杀手所在的 {} 或周围一格（003 L46）",
                    t.player,
                    cell_name(v),
                    cell_name(k)
                ),
            );
            w.res.for_judge.push(format!(
                "杀手的杀人对象 {} 不在范围内，本夜按未杀人结算（A-Q5：是否让杀手在截止前重选，由法官定）",
                t.player
            ));
            continue;
        }
        corner(w, k, v, &format!("杀手斜向杀 {}", t.player));
        w.res.powers_used.push(PowerUse {
            player: a.by[0].clone(),
            power: "杀人".into(),
        });
        victim = Some(t.player.clone());
    }
    victim
}

/// Whether `a`'s holder may use its item tonight (L57–L71, L75; A-Q3, A-Q4).
fn item_ok(w: &mut Work, a: &Action, victim: Option<&str>) -> bool {
    let p = a.by[0].clone();
    let item = a.power.as_str();
    let killer = w.night.seat(&p).is_some_and(is_killer);
    let allowed = if killer { KILLER_ITEMS } else { GOOD_ITEMS };
    if !allowed.contains(&item) {
        let side = if killer { "杀手" } else { "好人" };
        w.refuse(a, format!("{item}不是{side}能用的道具（003 L57–L71）"));
        return false;
    }
    if item == "扫帚魔法" && w.night.seat(&p).is_some_and(|s| s.role.trim() != "副杀") {
        w.refuse(a, "扫帚魔法为副杀专用（003 L67）");
        return false;
    }
    if w.holds(&p, item) < 1.0 {
        w.refuse(a, format!("{p} 没有{item}"));
        return false;
    }
    if w.picked_now.contains(&(p.clone(), item.to_string()))
        && w.reading(&SAME_NIGHT, format!("{p} 当夜捡到{item}就要用")) == "next_night"
    {
        w.refuse(
            a,
            format!("{item}今夜才捡到，其后的夜晚才可使用（003 L75，A-Q3）"),
        );
        return false;
    }
    if victim == Some(p.as_str())
        && w.reading(&KILLED_HOLDER, format!("{p} 当夜被杀，还要用{item}")) == "void"
    {
        w.refuse(a, "持有者当夜被杀，道具作废（003 L75、L77，A-Q4）");
        return false;
    }
    true
}

/// The items, all at once after the moves and kills (L77). Returns whether the victim is saved.
fn items(w: &mut Work, acts: &[Action], victim: Option<&str>, broom_moved: bool) -> bool {
    let mut valid: Vec<Action> = Vec::new();
    for a in acts.iter().filter(|a| ITEMS.contains(&a.power.as_str())) {
        if a.power == "扫帚魔法" && broom_moved {
            continue;
        }
        if item_ok(w, a, victim) {
            valid.push(a.clone());
        }
    }
    let hidden: BTreeSet<String> = valid
        .iter()
        .filter(|a| a.power == "隐身")
        .map(|a| a.by[0].clone())
        .collect();
    let saved = victim.is_some_and(|v| {
        valid
            .iter()
            .any(|a| a.power == "解毒药" && a.target.as_deref().map(str::trim) == Some(v))
    });
    for a in &valid {
        let p = a.by[0].clone();
        let used = match a.power.as_str() {
            "光照魔法" => light(w, a, &hidden, if saved { None } else { victim }),
            "探路灯" => lamp(w, a),
            "扫帚魔法" => jump(w, a),
            "陷阱" => trap(w, a),
            _ => true,
        };
        if used {
            *w.spent.entry((p.clone(), a.power.clone())).or_default() += 1.0;
            w.res.powers_used.push(PowerUse {
                player: p,
                power: a.power.clone(),
            });
        }
    }
    saved
}

/// L60 "可以在黑暗中看到任意一格是否有人存在"; L66 a killer using 隐身 there stays unseen.
fn light(w: &mut Work, a: &Action, hidden: &BTreeSet<String>, dead: Option<&str>) -> bool {
    let Some(c) = a
        .target
        .as_deref()
        .and_then(parse_cell)
        .filter(|c| w.map.cells.contains(c))
    else {
        w.refuse(a, "光照魔法要写照哪一格（地图上的格子，如 B3）");
        return false;
    };
    let p = a.by[0].clone();
    let present = w
        .pos
        .iter()
        .filter(|(q, at)| **at == c && **q != p && Some(q.as_str()) != dead)
        .any(|(q, _)| !hidden.contains(q));
    let seen = if present { "有人" } else { "无人" };
    w.tell(&p, format!("光照魔法：{} {seen}（003 L60）", cell_name(c)));
    true
}

/// L61 "可以在黑暗中看移动方向4格中的任意一格是否有路".
fn lamp(w: &mut Work, a: &Action) -> bool {
    let p = a.by[0].clone();
    let Some(d) = a
        .target
        .as_deref()
        .and_then(parse_dir)
        .filter(|d| d.dr == 0 || d.dc == 0)
    else {
        w.refuse(a, "探路灯要写看哪个方向（东、西、南、北）");
        return false;
    };
    let Some(from) = w.pos.get(&p).copied() else {
        return false;
    };
    let road = if w.map.cells.contains(&step(from, d)) {
        "有路"
    } else {
        "无路"
    };
    w.tell(
        &p,
        format!("探路灯：{} 向{}{road}（003 L61）", cell_name(from), d.zh),
    );
    true
}

/// L67 "扫帚魔法——跨越1格障碍墙（空白格），为副杀专用".
fn jump(w: &mut Work, a: &Action) -> bool {
    let p = a.by[0].clone();
    let timing = w.reading(&BROOM, format!("{p} 用扫帚魔法"));
    if w.night.seat(&p).is_some_and(|s| s.role.trim() != "副杀") {
        w.refuse(a, "扫帚魔法为副杀专用（003 L67）");
        return false;
    }
    if timing == "with_move" && w.holds(&p, "扫帚魔法") < 1.0 {
        w.refuse(a, format!("{p} 没有扫帚魔法"));
        return false;
    }
    let (Some(d), Some(from)) = (
        a.target.as_deref().and_then(parse_dir),
        w.pos.get(&p).copied(),
    ) else {
        w.refuse(a, "扫帚魔法要写跨墙的方向");
        return false;
    };
    let (mid, to) = (step(from, d), step(step(from, d), d));
    if w.map.cells.contains(&mid) || !w.map.cells.contains(&to) {
        w.refuse(
            a,
            format!(
                "从 {} 向{}：扫帚魔法只跨一格空白墙，落到对面的格子上（003 L67）",
                cell_name(from),
                d.zh
            ),
        );
        return false;
    }
    w.pos.insert(p.clone(), to);
    w.tell(
        &p,
        format!("扫帚魔法：你跨过障碍墙，现在位于{}区域", cell_name(to)),
    );
    if timing == "with_move" {
        *w.spent.entry((p.clone(), "扫帚魔法".into())).or_default() += 1.0;
        w.res.powers_used.push(PowerUse {
            player: p,
            power: "扫帚魔法".into(),
        });
    }
    true
}

/// L71 "『陷阱』——由获得者放置": on the named cell, the holder's own by default.
fn trap(w: &mut Work, a: &Action) -> bool {
    let p = a.by[0].clone();
    let at = match a.target.as_deref() {
        Some(t) => parse_cell(t).filter(|c| w.map.cells.contains(c)),
        None => w.pos.get(&p).copied(),
    };
    let Some(c) = at else {
        w.refuse(a, "陷阱要放在地图上的格子（如 B3；不写则放在自己所在格）");
        return false;
    };
    let n = w.trap_at(c) + 1.0;
    w.traps.insert(c, n);
    w.tell(&p, format!("陷阱已放在 {}（003 L71）", cell_name(c)));
    true
}

/// The death and the dawn post (L14 "法官公布被杀的人所在的区域"), nights without a kill (L49),
/// and the facts that carry.
fn finish(w: &mut Work, victim: Option<String>, saved: bool) {
    let n = w.night.number;
    let inn = w.inn;
    match victim.as_deref().filter(|_| !saved) {
        Some(v) => {
            let at = w.pos.get(v).map(|c| cell_name(*c)).unwrap_or_default();
            w.res.deaths.push(Death {
                player: v.to_string(),
                cause: format!("被杀手杀害，位于{at}区域（003 L46）"),
            });
            w.announce
                .push(format!("{v} 被杀，位于{at}区域（003 L14）"));
            w.pos.remove(v);
        }
        None => {
            let counted = if inn {
                w.reading(&NO_KILL, "杀手用客栈停止攻击的夜晚") == "every_night"
            } else {
                if saved {
                    w.reading(&NO_KILL, "解毒药救下的夜晚");
                }
                true
            };
            if counted {
                let total = w.night.fact(NO_KILL_NIGHTS) + 1.0;
                w.res.facts.insert(NO_KILL_NIGHTS.into(), total);
                w.res.for_judge.push(format!(
                    "杀手已有 {total} 个夜晚杀不到人（003 L49 “2个以上”：≥2 或 >2 见预设的 [[win]]）"
                ));
            }
            w.announce.push("昨夜无人被杀".into());
        }
    }
    for (p, c) in w.pos.clone() {
        w.res.facts.insert(format!("位置:{p}"), cell_code(c));
    }
    for ((p, it), d) in w.gained.clone() {
        let k = format!("得到:{p}:{it}");
        w.res.facts.insert(k.clone(), w.night.fact(&k) + d);
    }
    for ((p, it), d) in w.spent.clone() {
        let k = format!("用掉:{p}:{it}");
        w.res.facts.insert(k.clone(), w.night.fact(&k) + d);
    }
    for ((c, it), d) in w.picked.clone() {
        let k = format!("拾取:{}:{it}", cell_name(c));
        w.res.facts.insert(k.clone(), w.night.fact(&k) + d);
    }
    for (c, v) in w.traps.clone() {
        w.res.facts.insert(format!("陷阱:{}", cell_name(c)), v);
    }
    w.res.next_day.missed.sort();
    w.res.announce = format!("[b]第{n}夜[/b]\n{}", w.announce.join("\n"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_in_players_words() {
        for (text, want) in [
            ("向东", "东"),
            ("东", "东"),
            ("往北走", "北"),
            ("朝西移动一格", "西"),
            ("东北方向", "东北"),
            ("s", "南"),
            ("NW", "西北"),
        ] {
            assert_eq!(parse_dir(text).map(|d| d.zh), Some(want), "{text}");
        }
        for text in ["上", "东西", "随便", ""] {
            assert!(parse_dir(text).is_none(), "{text}");
        }
    }

    #[test]
    fn cells_are_named_column_letter_and_row() {
        assert_eq!(cell_name((2, 3)), "C2");
        assert_eq!(parse_cell("c2"), Some((2, 3)));
        assert_eq!(code_cell(cell_code((2, 3))), Some((2, 3)));
        assert_eq!(parse_cell("2C"), None);
    }
}
