//! Word's 字数 on mixed Chinese and Western text: one case per line, with the rule it follows.

use bansha_parsers::wordcount::{count, figures, repeated_words, split_bbcode_quotes};

/// (text, words, chars without spaces, rule).
const CASES: &[(&str, usize, usize, &str)] = &[
    // The examples.
    (
        "Hello、World。",
        4,
        12,
        "Latin runs 1 each; 、。 are CJK punctuation, 1 each",
    ),
    (
        "Test 123, example.",
        3,
        16,
        "half-width punctuation joins its run",
    ),
    ("东京2024奥运", 5, 8, "ideographs 1 each; a digit run is 1"),
    ("你好。。。。", 6, 6, "each 。 is a word"),
    // Ideographs, kana, Hangul.
    ("版杀", 2, 2, "each ideograph is a word"),
    ("繁體字測試", 5, 5, "traditional ideographs too"),
    (
        "𠮷野家",
        3,
        3,
        "CJK extension B (a surrogate pair in UTF-16) is one word",
    ),
    ("ひらがなカタカナ", 8, 8, "kana, each a word"),
    (
        "ｶﾀｶﾅ",
        4,
        4,
        "half-width katakana: Asian script, each a word",
    ),
    ("안녕하세요", 5, 5, "Hangul syllables, each a word"),
    ("ㄅㄆㄇ", 3, 3, "bopomofo, each a word"),
    // Full-width forms.
    (
        "ＡＢＣ１２３",
        6,
        6,
        "full-width letters and digits: each a word",
    ),
    ("！？，：；", 5, 5, "full-width punctuation: each a word"),
    ("￥100", 2, 4, "full-width ￥ is a word; 100 a run"),
    ("１．２．３．", 6, 6, "full-width digits and full stops"),
    // Spaces.
    (
        "　　最后说两句。",
        6,
        6,
        "U+3000 is a space, not a word or a character",
    ),
    ("a　b", 2, 2, "U+3000 separates Latin runs"),
    ("a\u{00A0}b", 2, 2, "no-break space separates"),
    ("a\tb\nc", 3, 3, "tabs and line breaks separate"),
    ("", 0, 0, "empty"),
    ("   \n\t　", 0, 0, "only spaces"),
    // Quotes, dashes, ellipses (decisions, see the module docs).
    ("“兵不厌诈。”", 7, 7, "curly double quotes: one word each"),
    ("‘好’", 3, 3, "curly single quotes: one word each"),
    ("请相信我……", 6, 6, "…… is two words (two U+2026)"),
    ("——这局", 4, 4, "—— is two words (two U+2014)"),
    ("《三国演义》", 6, 6, "book-title marks are CJK punctuation"),
    ("【小结】", 4, 4, "lenticular brackets"),
    ("「预言家」『查杀』", 9, 9, "corner brackets"),
    ("\"quoted\"", 1, 8, "straight quotes join the run"),
    ("l'été", 1, 5, "accented Latin with an apostrophe: one run"),
    // Mixed runs.
    (
        "A面B面",
        4,
        4,
        "Latin letters between ideographs are separate runs",
    ),
    (
        "iPhone15很贵",
        3,
        10,
        "letters and digits together are one run",
    ),
    ("http://example.com/seer.png", 1, 27, "a URL is one run"),
    (
        "ABC123，半角",
        4,
        9,
        "run, full-width comma, two ideographs",
    ),
    ("3.14159", 1, 7, "a number with a point is one run"),
    ("-_-", 1, 3, "ASCII emoticon: one run"),
    ("T_T好惨", 3, 5, "run then two ideographs"),
    // Emoji and what GBK forums leave.
    (
        "😂😂😂",
        1,
        3,
        "emoji are not Asian script: a run of them is one word",
    ),
    ("好😂", 2, 2, "ideograph, then an emoji run"),
    ("😂 这轮好乱啊", 6, 6, "emoji run, space, five ideographs"),
    (
        "&#128514;",
        1,
        9,
        "a GBK forum's literal emoji text is one run",
    ),
    (
        "①②③",
        1,
        3,
        "circled digits (not CJK blocks) join as one run",
    ),
    ("★☆", 1, 2, "stars join as one run"),
    ("℃", 1, 1, "a symbol alone is one run"),
    // Invisible characters.
    (
        "a\u{200B}b",
        1,
        2,
        "a zero-width space is not a separator or a character",
    ),
    ("\u{FEFF}你好", 2, 2, "a byte-order mark is nothing"),
    // Longer text.
    (
        "我先说说我的视角。昨晚是平安夜，说明要么女巫开了解药。",
        27,
        27,
        "a sentence: every ideograph and mark",
    ),
    (
        "[b]粗体[/b]",
        4,
        9,
        "BBCode tags left in are runs (the parser removes them from posts)",
    ),
];

#[test]
fn word_counts() {
    assert!(CASES.len() >= 40);
    for (text, words, chars, rule) in CASES {
        let c = count(text);
        assert_eq!(
            (c.words, c.chars_no_spaces),
            (*words, *chars),
            "{text:?}: {rule}"
        );
        assert_eq!(c.words, c.east_asian + c.runs, "{text:?}");
    }
}

#[test]
fn quotes_and_repetition() {
    let post = "[quote]小飞的查杀我是信的。[/quote]李逵反跳得太急了。我站小飞。";
    let (own, quotes) = split_bbcode_quotes(post);
    assert_eq!(own, "李逵反跳得太急了。我站小飞。");
    assert_eq!(quotes, ["小飞的查杀我是信的。"]);
    let f = figures(&own, &quotes.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!((f.own.words, f.quoted_words, f.total.words), (14, 10, 24));
    assert!((f.quoted_share - 10.0 / 24.0).abs() < 1e-9);

    // Nested quotes are one quoted block.
    let (own, quotes) = split_bbcode_quotes("A[quote=x]B[quote]C[/quote]D[/quote]E");
    assert_eq!((own.as_str(), quotes.len()), ("AE", 1));

    // Repetition: the second and third "他是狼，我确定。" (7 words each) repeat; "是。" is too short.
    let text = "他是狼，我确定。今天出他。他是狼，我确定。是。是。他是狼，我确定！";
    assert_eq!(repeated_words(text), 14);
    let f = figures(text, &[]);
    assert!((f.repeated_share - 14.0 / f.own.words as f64).abs() < 1e-9);
}

#[test]
fn the_wordcount_command_reads_files_stdin_and_gbk() {
    use assert_cmd::Command;
    let dir = tempfile::tempdir().unwrap();
    let utf8 = dir.path().join("report.txt");
    std::fs::write(
        &utf8,
        "[quote]小飞的查杀我是信的。[/quote]李逵反跳得太急了。我站小飞。",
    )
    .unwrap();
    Command::cargo_bin("bansha")
        .unwrap()
        .args(["wordcount"])
        .arg(&utf8)
        .assert()
        .success()
        .stdout(predicates::str::contains("字数：24\n"))
        .stdout(predicates::str::contains(
            "引用：10 字，占 41.7%（[quote] 块）\n",
        ))
        .stdout(predicates::str::contains("去掉引用后：14 字\n"));
    let (gbk, _, _) = encoding_rs::GBK.encode("东京2024奥运");
    let gbk_file = dir.path().join("gbk.txt");
    std::fs::write(&gbk_file, &gbk).unwrap();
    let out = Command::cargo_bin("bansha")
        .unwrap()
        .args(["wordcount", "--json"])
        .arg(&gbk_file)
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["total"]["words"], 5);
    Command::cargo_bin("bansha")
        .unwrap()
        .args(["wordcount", "-"])
        .write_stdin("Hello、World。")
        .assert()
        .success()
        .stdout(predicates::str::contains("字数：4\n"));
    Command::cargo_bin("bansha")
        .unwrap()
        .args(["wordcount", "/nonexistent/file"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("无法读取"));
}
