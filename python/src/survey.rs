//! `robocc.survey`'s native half: the store crate's survey
//! ([`robocc_store::survey`]) of a `Store` as rows of plain values, and as
//! the text the CLI writes (its writer, so the bytes are the CLI's); and
//! one store-set shard's survey, which `robocc.spark survey` runs per
//! partition.

use crate::set::{self, Row};
use crate::store::Store;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use robocc_store::survey::{class_name, Format, PolicyFacts, Survey, SurveyError, SurveyOptions};
use robocc_store::StoreBuilder;

/// A probe path's answers: crawl allowed, then the preference per
/// `CHANNELS` entry (train-ai, search, ai-input).
type PathCells = (bool, Option<bool>, Option<bool>, Option<bool>);
/// An agent's classes (crawl, train-ai) as the columns write them, and its
/// probe paths.
type AgentCells = (&'static str, &'static str, Vec<PathCells>);
/// A policy's facts: read whole, sitemaps, licenses, agents.
type FactsCells = (bool, usize, Vec<String>, Vec<AgentCells>);
/// A host: key, status, outcome, source, fetched_at, index of its facts.
type HostCells = (
    String,
    u16,
    &'static str,
    &'static str,
    Option<String>,
    usize,
);
/// What a survey returns to Python: the column names, the distinct
/// policies' facts, and the hosts.
type Surveyed = (Vec<String>, Vec<FactsCells>, Vec<HostCells>);

/// A refusal (no agent, a bad path, an agent the store's policies do not
/// answer) is the caller's `ValueError`; a damaged store a `LoadError`.
fn survey_error(e: SurveyError) -> PyErr {
    match e {
        SurveyError::Load(e) => crate::convert::load_error(e),
        SurveyError::Policy(_) => crate::LoadError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

fn survey_options(agents: Vec<String>, paths: Vec<String>, max_states: usize) -> SurveyOptions {
    let mut options = SurveyOptions::new(agents);
    options.paths = paths;
    options.max_states = max_states;
    options
}

fn facts_cells(f: &PolicyFacts) -> FactsCells {
    let agents = f
        .agents
        .iter()
        .map(|a| {
            let paths = a
                .paths
                .iter()
                .map(|p| {
                    let [t, s, i] = p.preferences;
                    (p.crawl, t, s, i)
                })
                .collect();
            (class_name(a.classes[0]), class_name(a.classes[1]), paths)
        })
        .collect();
    (f.read_whole, f.sitemaps, f.licenses.clone(), agents)
}

/// Surveys `store`, adding its policies' facts and its hosts (in index
/// order, each naming its facts by index into `out.1`).
fn survey_into(
    store: &robocc_engine::Store,
    options: &SurveyOptions,
    out: &mut Surveyed,
) -> Result<(), SurveyError> {
    let survey = Survey::new(store, options.clone())?;
    if out.0.is_empty() {
        out.0 = survey.columns();
    }
    let base = out.1.len();
    for id in store.policy_ids() {
        let facts = survey.facts(id).ok_or(SurveyError::Policy(id))?;
        out.1.push(facts_cells(facts));
    }
    for h in store.hosts() {
        let h = h?;
        let row = survey.row(&h).ok_or(SurveyError::Policy(h.policy))?;
        out.2.push((
            row.host.to_string(),
            row.status,
            row.outcome().name(),
            row.source.name(),
            row.fetched_at.map(str::to_string),
            base + h.policy.index(),
        ));
    }
    Ok(())
}

/// Surveys every host of ``store`` (a store, or each shard of a set in
/// order) for ``agents`` at ``paths``: ``(columns, facts, hosts)``, where
/// ``facts`` are the distinct policies' ``(read_whole, sitemaps, licenses,
/// [(crawl_class, train_ai_class, [(crawl, train_ai, search, ai_input)
/// per path]) per agent])`` and ``hosts`` are ``(host, status, outcome,
/// source, fetched_at, facts_index)``. The GIL is released.
#[pyfunction]
#[pyo3(signature = (store, agents, paths, max_reach_states))]
pub fn survey_store(
    py: Python<'_>,
    store: &Store,
    agents: Vec<String>,
    paths: Vec<String>,
    max_reach_states: usize,
) -> PyResult<Surveyed> {
    let inner = store.inner()?;
    let options = survey_options(agents, paths, max_reach_states);
    py.detach(|| {
        let mut out = Surveyed::default();
        for s in inner.stores() {
            survey_into(s?, &options, &mut out)?;
        }
        Ok(out)
    })
    .map_err(survey_error)
}

/// The survey of ``store`` as ``robocc survey --store`` writes it:
/// ``format`` ``"csv"`` (a header line, then a line per host) or
/// ``"jsonl"``; a set's shards one after the other.
#[pyfunction]
#[pyo3(signature = (store, agents, paths, max_reach_states, format))]
pub fn survey_text(
    py: Python<'_>,
    store: &Store,
    agents: Vec<String>,
    paths: Vec<String>,
    max_reach_states: usize,
    format: &str,
) -> PyResult<String> {
    let format = match format {
        "csv" => Format::Csv,
        "jsonl" => Format::Jsonl,
        _ => {
            return Err(PyValueError::new_err(format!(
                "format={format:?}: expected \"csv\" or \"jsonl\""
            )))
        }
    };
    let inner = store.inner()?;
    let options = survey_options(agents, paths, max_reach_states);
    let bytes = py
        .detach(|| {
            let mut out = Vec::new();
            for (i, s) in inner.stores().enumerate() {
                let s = s.map_err(SurveyError::Load)?;
                let survey = Survey::new(s, options.clone())?;
                if i == 0 {
                    survey.write_header(format, &mut out)?;
                }
                for row in survey.rows() {
                    survey.write_row(format, &row?, &mut out)?;
                }
            }
            Ok(out)
        })
        .map_err(|e| match e {
            TextError::Survey(e) => survey_error(e),
            TextError::Io(e) => e.into(),
        })?;
    // The writers write `String`s.
    String::from_utf8(bytes).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Why [`survey_text`] failed: the survey's error, or the writer's
/// (writing to a `Vec`, which does not fail).
enum TextError {
    Survey(SurveyError),
    Io(std::io::Error),
}

impl From<SurveyError> for TextError {
    fn from(e: SurveyError) -> TextError {
        TextError::Survey(e)
    }
}

impl From<std::io::Error> for TextError {
    fn from(e: std::io::Error) -> TextError {
        TextError::Io(e)
    }
}

/// Builds shard ``which`` of ``shards`` from ``inputs`` (as
/// :func:`build_store_shard`: the shard's hosts and the hosts their
/// redirects read), each-agent for ``agents``, as ``robocc survey --warc``
/// builds its store, and surveys it as :func:`survey_store` does. The
/// GIL is released. ``options`` are :func:`robocc.compile`'s keyword
/// arguments.
#[pyfunction]
#[pyo3(signature = (inputs, agents, shards, which, paths, max_reach_states, *, on_failure = "disallow", **options))]
#[allow(clippy::too_many_arguments)]
pub fn survey_shard(
    py: Python<'_>,
    inputs: Vec<Row>,
    agents: Vec<String>,
    shards: usize,
    which: usize,
    paths: Vec<String>,
    max_reach_states: usize,
    on_failure: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Surveyed> {
    let compile = crate::options::kwargs_options("survey_shard", options)?;
    for a in &agents {
        crate::check_agent(py, &a.into(), compile.dialect)?;
    }
    let on_failure = crate::store::on_failure_arg(on_failure)?;
    let tokens = robocc_compiler::Agents::new(agents.iter().cloned());
    let mut builder = StoreBuilder::new(&tokens);
    builder
        .compile_options(compile)
        .on_failure(on_failure)
        .each_agent(true);
    let options = survey_options(agents, paths, max_reach_states);
    let bytes = py
        .detach(|| {
            builder.build_shard(inputs.into_iter().map(|r| Ok(set::input(r))), shards, which)
        })
        .map_err(set::err)?
        .0;
    py.detach(|| {
        let store = robocc_engine::Store::from_slice(&bytes)?;
        let mut out = Surveyed::default();
        survey_into(&store, &options, &mut out)?;
        Ok(out)
    })
    .map_err(survey_error)
}
