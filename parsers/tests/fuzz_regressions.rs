//! What fuzzing found (`fuzz/run.sh` copies each crash, timeout or out-of-memory input to
//! `fuzz/regressions/TARGET/`), replayed through the same entry points on every test run, plus
//! hand-made inputs of the kinds that break parsers. Each must finish without a panic.

use std::path::Path;

/// A fuzz target: its name and its entry point.
type Target = (&'static str, fn(&[u8]));

fn replay(target: &str, run: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/regressions")
        .join(target);
    let mut n = 0;
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries {
            let p = e.unwrap().path();
            if p.is_file() && !p.ends_with(".gitkeep") {
                let data = std::fs::read(&p).unwrap();
                let start = std::time::Instant::now();
                run(&data);
                assert!(
                    start.elapsed().as_secs() < 10,
                    "{} took {:?}",
                    p.display(),
                    start.elapsed()
                );
                n += 1;
            }
        }
    }
    n
}

/// Inputs of the kinds that break parsers, for every target.
fn hostile() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"{".to_vec(),
        b"{\"Variables\":{\"postlist\":[{\"pid\":\"1\",\"message\":\"&#0;&#x110000;&#55296;\"}]}}"
            .to_vec(),
        b"<?xml version=\"1.0\"?><root><![CDATA[".to_vec(),
        "投票对象：\u{200b}\u{200b}\n投票理由：".as_bytes().to_vec(),
        vec![0xff, 0xfe, 0x81, 0x30, 0x81],
    ];
    v.push("[quote]".repeat(5000).into_bytes());
    v.push(
        "<div class=\"quote\"><blockquote>"
            .repeat(5000)
            .into_bytes(),
    );
    v
}

#[test]
fn fuzz_findings_and_hostile_inputs_never_panic() {
    use bansha_parsers::fuzz;
    let targets: [Target; 5] = [
        ("page", fuzz::page),
        ("api", fuzz::api),
        ("ballot", fuzz::ballot),
        ("wordcount", fuzz::wordcount),
        ("deadline", fuzz::deadline),
    ];
    for (name, run) in targets {
        replay(name, run);
        for data in hostile() {
            run(&data);
        }
    }
}
