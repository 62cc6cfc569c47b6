//! b2inspect: shows, verifies and recovers Blosc2 files (frames, sparse frames, b2nd arrays,
//! single chunks). Argument handling and output only; the logic is in `blosc2::inspect`.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use blosc2::inspect::{self, msgpack::json_string, ChunkRow, Failure, Info, Target};

const USAGE: &str = "usage:
  b2inspect info [--json] FILE       header, parameters, metalayers
  b2inspect chunks [--json] FILE     one row per chunk
  b2inspect verify [--json] FILE     check the fingerprint (if any: which chunk or region
                                     is damaged), decompress everything, report each problem
  b2inspect recover DAMAGED OUT      rebuild a readable frame from a damaged contiguous frame
FILE: a .b2frame/.b2nd file, a sparse frame directory, or a file holding one chunk.
exit status: 0 ok, 1 verify found problems, 2 usage, 3 missing/unreadable,
             4 not a Blosc2 file, 5 damaged; recover refuses (exit 2) an existing
             output";

const EXIT_PROBLEMS: u8 = 1;
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    // A bug must not print a panic trace at the user: report it in one line instead.
    std::panic::set_hook(Box::new(|p| {
        eprintln!("b2inspect: internal error: {p}");
    }));
    let args: Vec<String> = std::env::args().skip(1).collect();
    match std::panic::catch_unwind(|| run(&args)) {
        Ok(code) => code,
        Err(_) => ExitCode::from(70),
    }
}

fn run(args: &[String]) -> ExitCode {
    let json = args.iter().any(|a| a == "--json");
    let rest: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| *a != "--json")
        .collect();
    if rest.iter().any(|a| *a == "-h" || *a == "--help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let usage = || {
        eprintln!("{USAGE}");
        ExitCode::from(EXIT_USAGE)
    };
    let result = match rest.as_slice() {
        ["info", file] => open(file).map(|t| {
            print!(
                "{}",
                if json {
                    info_json(&inspect::info(&t))
                } else {
                    info_text(&inspect::info(&t))
                }
            );
            ExitCode::SUCCESS
        }),
        ["chunks", file] => open(file).map(|t| chunks(&t, json)),
        ["verify", file] => open(file).map(|t| verify(&t, json)),
        ["recover", damaged, out] if !json => recover(damaged, out),
        _ => return usage(),
    };
    match result {
        Ok(code) => code,
        Err(f) => {
            eprintln!("b2inspect: {}", f.message());
            ExitCode::from(f.exit_code() as u8)
        }
    }
}

fn open(file: &str) -> Result<Target, Failure> {
    inspect::open(Path::new(file))
}

fn jstr(s: &str) -> String {
    let mut o = String::new();
    json_string(&mut o, s);
    o
}

fn jlist(items: &[String]) -> String {
    let v: Vec<String> = items.iter().map(|s| jstr(s)).collect();
    format!("[{}]", v.join(", "))
}

fn ratio(nbytes: i64, cbytes: i64) -> f64 {
    if cbytes > 0 {
        nbytes as f64 / cbytes as f64
    } else {
        0.0
    }
}

fn info_text(i: &Info) -> String {
    let mut o = String::new();
    o += &format!("kind:        {}\n", i.kind);
    if let Some(h) = &i.frame {
        let mut flags = Vec::new();
        if h.variable_chunks {
            flags.push("variable-chunks");
        }
        if h.vl_blocks {
            flags.push("vl-blocks");
        }
        if h.use_dict {
            flags.push("dict");
        }
        o += &format!(
            "frame:       version {}{}{}\n",
            h.version,
            if flags.is_empty() { "" } else { ", " },
            flags.join(", ")
        );
        o += &format!(
            "codec:       {} (clevel {})\n",
            inspect::codec_name(h.compcode),
            h.clevel
        );
        o += &format!(
            "filters:     {}\n",
            inspect::filter_names(&h.filters).join(", ")
        );
        o += &format!("typesize:    {}\n", h.typesize);
        o += &format!("chunksize:   {}\n", h.chunksize);
        o += &format!("blocksize:   {}\n", h.blocksize);
    }
    if let Some(h) = &i.chunk {
        o += &format!(
            "format:      version {} (codec format {})\n",
            h.version, h.versionlz
        );
        o += &format!("codec:       {}\n", inspect::codec_name(h.compcode()));
        o += &format!(
            "filters:     {}\n",
            inspect::filter_names(&h.filters).join(", ")
        );
        o += &format!("typesize:    {}\n", h.typesize);
        o += &format!("blocksize:   {}\n", h.blocksize);
        o += &format!(
            "special:     {}\n",
            h.special().map(inspect::special_name).unwrap_or("invalid")
        );
    }
    o += &format!("nbytes:      {}\n", i.nbytes);
    o += &format!("cbytes:      {}\n", i.cbytes);
    o += &format!("ratio:       {:.2}\n", ratio(i.nbytes, i.cbytes));
    o += &format!("chunks:      {} ({} special)\n", i.nchunks, i.nspecial);
    if let Some(a) = &i.array {
        o += &format!("array ({}):\n", a.layer);
        o += &format!("  shape:      {:?}\n", a.meta.shape);
        o += &format!("  chunkshape: {:?}\n", a.meta.chunkshape);
        o += &format!("  blockshape: {:?}\n", a.meta.blockshape);
        o += &format!(
            "  dtype:      {}\n",
            a.meta.dtype.as_deref().unwrap_or("(none)")
        );
    }
    for m in &i.metas {
        o += &format!("metalayer {}: {}\n", m.name, m.json);
    }
    for m in &i.vlmetas {
        o += &format!("vlmetalayer {}: {}\n", m.name, m.json);
    }
    o
}

fn info_json(i: &Info) -> String {
    let mut f = vec![format!("\"kind\": {}", jstr(i.kind))];
    if let Some(h) = &i.frame {
        f.push(format!("\"frame_version\": {}", h.version));
        f.push(format!("\"variable_chunks\": {}", h.variable_chunks));
        f.push(format!("\"vl_blocks\": {}", h.vl_blocks));
        f.push(format!(
            "\"codec\": {}",
            jstr(&inspect::codec_name(h.compcode))
        ));
        f.push(format!("\"clevel\": {}", h.clevel));
        f.push(format!(
            "\"filters\": {}",
            jlist(&inspect::filter_names(&h.filters))
        ));
        f.push(format!("\"typesize\": {}", h.typesize));
        f.push(format!("\"chunksize\": {}", h.chunksize));
        f.push(format!("\"blocksize\": {}", h.blocksize));
    }
    if let Some(h) = &i.chunk {
        f.push(format!("\"format_version\": {}", h.version));
        f.push(format!(
            "\"codec\": {}",
            jstr(&inspect::codec_name(h.compcode()))
        ));
        f.push(format!(
            "\"filters\": {}",
            jlist(&inspect::filter_names(&h.filters))
        ));
        f.push(format!("\"typesize\": {}", h.typesize));
        f.push(format!("\"blocksize\": {}", h.blocksize));
    }
    f.push(format!("\"nbytes\": {}", i.nbytes));
    f.push(format!("\"cbytes\": {}", i.cbytes));
    f.push(format!("\"ratio\": {:.4}", ratio(i.nbytes, i.cbytes)));
    f.push(format!("\"nchunks\": {}", i.nchunks));
    f.push(format!("\"nspecial\": {}", i.nspecial));
    if let Some(a) = &i.array {
        f.push(format!(
            "\"array\": {{\"layer\": {}, \"shape\": {:?}, \"chunkshape\": {:?}, \"blockshape\": {:?}, \"dtype\": {}}}",
            jstr(&a.layer),
            a.meta.shape,
            a.meta.chunkshape,
            a.meta.blockshape,
            a.meta.dtype.as_deref().map_or("null".to_string(), jstr)
        ));
    }
    let layers = |ms: &[inspect::MetaView]| {
        let v: Vec<String> = ms
            .iter()
            .map(|m| format!("{}: {}", jstr(&m.name), m.json))
            .collect();
        format!("{{{}}}", v.join(", "))
    };
    f.push(format!("\"metalayers\": {}", layers(&i.metas)));
    f.push(format!("\"vlmetalayers\": {}", layers(&i.vlmetas)));
    format!("{{{}}}\n", f.join(", "))
}

fn chunks(t: &Target, json: bool) -> ExitCode {
    let rows = inspect::chunk_rows(t);
    let mut bad = false;
    let mut out = String::new();
    if json {
        let v: Vec<String> = rows
            .iter()
            .map(|r| match r {
                Ok(r) => row_json(r),
                Err((n, e)) => format!("{{\"index\": {n}, \"error\": {}}}", jstr(&e.to_string())),
            })
            .collect();
        out = format!("[{}]\n", v.join(",\n "));
        bad = rows.iter().any(|r| r.is_err());
    } else {
        out += &format!(
            "{:>6} {:>12} {:>10} {:>10} {:<8} {:<22} {:>10} {:<7} {}\n",
            "chunk",
            "offset",
            "cbytes",
            "nbytes",
            "codec",
            "filters",
            "blocksize",
            "special",
            "version"
        );
        for r in &rows {
            match r {
                Ok(r) => {
                    out += &format!(
                        "{:>6} {:>12} {:>10} {:>10} {:<8} {:<22} {:>10} {:<7} {}\n",
                        r.index,
                        r.offset.map_or("-".to_string(), |o| o.to_string()),
                        r.cbytes,
                        r.nbytes,
                        r.codec,
                        if r.filters.is_empty() {
                            "-".to_string()
                        } else {
                            r.filters.join(",")
                        },
                        r.blocksize,
                        if r.special.is_empty() { "-" } else { r.special },
                        r.version
                    )
                }
                Err((n, e)) => {
                    bad = true;
                    out += &format!("{n:>6} unreadable header: {e}\n");
                }
            }
        }
    }
    print!("{out}");
    if bad {
        ExitCode::from(EXIT_PROBLEMS)
    } else {
        ExitCode::SUCCESS
    }
}

fn row_json(r: &ChunkRow) -> String {
    format!(
        "{{\"index\": {}, \"offset\": {}, \"cbytes\": {}, \"nbytes\": {}, \"codec\": {}, \"filters\": {}, \"blocksize\": {}, \"special\": {}, \"version\": {}}}",
        r.index,
        r.offset.map_or("null".to_string(), |o| o.to_string()),
        r.cbytes,
        r.nbytes,
        jstr(&r.codec),
        jlist(&r.filters),
        r.blocksize,
        if r.special.is_empty() { "null".to_string() } else { jstr(r.special) },
        r.version
    )
}

fn verify(t: &Target, json: bool) -> ExitCode {
    let tty = std::io::stderr().is_terminal();
    let start = Instant::now();
    let mut last_draw = start;
    let mut drawn = false;
    // The bar appears only on a terminal and only once the work has taken a moment.
    let mut progress = |done: i64, total: i64| {
        let now = Instant::now();
        if !tty
            || now - start < Duration::from_millis(500)
            || (now - last_draw < Duration::from_millis(100) && done < total)
        {
            return;
        }
        last_draw = now;
        drawn = true;
        let width = 40;
        let filled = if total > 0 {
            (done * width / total) as usize
        } else {
            width as usize
        };
        eprint!(
            "\r[{}{}] {done}/{total} chunks",
            "#".repeat(filled),
            " ".repeat(width as usize - filled)
        );
        let _ = std::io::stderr().flush();
    };
    let problems = inspect::verify(t, &mut progress);
    if drawn {
        eprintln!();
    }
    let fingerprint = match inspect::fingerprint(t) {
        None => "not a frame".to_string(),
        Some(Err(e)) => format!("not checked ({e})"),
        Some(Ok(r)) => match (&r.absent, r.damaged.is_empty()) {
            (Some(why), _) => format!("none ({why})"),
            (None, true) => format!(
                "intact ({} stored chunks, {} bytes checked{})",
                r.chunks_checked,
                r.chunk_bytes,
                if r.unreferenced > 0 {
                    format!("; {} unreferenced data bytes not covered", r.unreferenced)
                } else {
                    String::new()
                }
            ),
            (None, false) => format!("DAMAGED ({} region(s))", r.damaged.len()),
        },
    };
    if json {
        let v: Vec<String> = problems
            .iter()
            .map(|p| {
                format!(
                    "{{\"location\": {}, \"message\": {}}}",
                    jstr(&p.location),
                    jstr(&p.message)
                )
            })
            .collect();
        println!(
            "{{\"ok\": {}, \"fingerprint\": {}, \"problems\": [{}]}}",
            problems.is_empty(),
            jstr(&fingerprint),
            v.join(", ")
        );
    } else if problems.is_empty() {
        println!("fingerprint: {fingerprint}");
        println!("ok: every chunk decompresses and every length agrees");
    } else {
        println!("fingerprint: {fingerprint}");
        for p in &problems {
            println!("{}: {}", p.location, p.message);
        }
        println!("{} problem(s)", problems.len());
    }
    if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_PROBLEMS)
    }
}

fn recover(damaged: &str, out: &str) -> Result<ExitCode, Failure> {
    let r = inspect::recover(Path::new(damaged), Path::new(out))?;
    let how = if r.walked {
        "walked from the header"
    } else {
        "read through the index"
    };
    match r.expected {
        Some(e) => println!("saved {} of {e} chunks ({how}) into {out}", r.saved),
        None => println!("saved {} chunks ({how}) into {out}", r.saved),
    }
    println!(
        "metalayers kept: {}, vlmetalayers kept: {}",
        r.metas, r.vlmetas
    );
    Ok(ExitCode::SUCCESS)
}
