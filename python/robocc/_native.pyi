"""Type stubs of robocc's native module (re-exported by ``robocc``)."""

from os import PathLike
from types import TracebackType
from typing import Any, ClassVar, Dict, Iterable, List, Mapping, NoReturn, Optional, Sequence, Tuple, Type, TypeVar, Union

from ._types import RequestRate, VisitTime

__version__: str

_Url = Union[str, bytes]
_Body = Union[bytes, bytearray, str]
_Bytes = Union[bytes, bytearray]
_Self = TypeVar("_Self")
_Path = Union[str, bytes, PathLike[str], PathLike[bytes]]

class RoboccError(Exception):
    """Base class of every error robocc raises."""

class CompileError(RoboccError):
    """A robots.txt could not be compiled: its ``limit`` is the keyword
    whose budget it ran into (``"max_automata"``, …), else ``None``."""

    limit: Optional[str]

class LoadError(RoboccError):
    """Bytes or a file are not a valid robocc policy or store."""

class StoreBuildError(RoboccError):
    """A store could not be built."""

class AgentError(CompileError, StoreBuildError, ValueError):
    """The agent is not a product token: the caller's mistake (a
    ValueError; a CompileError and a StoreBuildError, as compile and
    build_store raised before)."""

class Verdict:
    """The answer for one URL, with the deciding rule."""

    @property
    def allowed(self) -> bool: ...
    @property
    def rule(self) -> Optional[int]: ...
    @property
    def rule_line(self) -> Optional[int]: ...
    @property
    def pattern(self) -> Optional[str]: ...
    @property
    def origin(self) -> Optional[str]: ...
    @property
    def source(self) -> Optional[str]:
        """A Store's answer: where the host's policy came from (fetched, redirected, unavailable, unreachable, failed)."""
    def __bool__(self) -> NoReturn:
        """Raises TypeError: test ``verdict.allowed`` (``if policy.check(url):`` was always true)."""

class Diagnostic:
    """A finding of the compiler."""

    @property
    def line(self) -> int: ...
    @property
    def code(self) -> str: ...
    @property
    def severity(self) -> str: ...  # "info", "warning" or "error"
    @property
    def message(self) -> str: ...

class Policy:
    """A robots.txt policy for one agent: compile()'s answers from the
    rules at once and compiles the automaton when the checks pay for it or
    the artifact is needed; from_bytes() and open() read an artifact."""

    @staticmethod
    def from_bytes(data: _Bytes) -> Policy: ...
    @staticmethod
    def open(path: _Path) -> Policy: ...
    def close(self) -> None:
        """Releases the artifact; every method then raises ValueError."""
    @property
    def closed(self) -> bool: ...
    def __enter__(self: _Self) -> _Self: ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool: ...
    def to_bytes(self) -> bytes:
        """The artifact (compile()'s policy is compiled now if not yet: CompileError over the budget)."""
    def save(self, path: _Path) -> None:
        """Writes the artifact through a temporary file and a rename (compiles first as to_bytes)."""
    def allowed(self, url: _Url) -> bool: ...
    def check(self, url: _Url) -> Verdict: ...
    def allowed_many(self, urls: Iterable[_Url]) -> List[bool]: ...
    def usage(self, url: _Url, usage: str) -> bool:
        """``"crawl"``, or an ACAP usage type of an acap policy: allowed?"""
    def preference(self, url: _Url, usage: str) -> Optional[bool]:
        """``"search"``, ``"train-ai"`` or ``"ai-input"``: True, False or None (unknown)."""
    def usage_states(self, url: _Url) -> Dict[str, Optional[bool]]:
        """Every usage in :attr:`usages` → True, False or None, from one pass."""
    @property
    def usages(self) -> Tuple[str, ...]: ...
    @property
    def agents(self) -> Tuple[str, ...]:
        """The agents check_each() answers: each of an each_agent=True policy, else one."""
    def check_each(self, url: _Url) -> Dict[str, Verdict]:
        """Each agent's Verdict for url (crawl), from one walk."""
    @property
    def agent(self) -> str:
        """The product token; several (compile()'s list) joined by ``,``."""
    @property
    def dialect(self) -> str: ...
    @property
    def url_mode(self) -> str: ...
    @property
    def crawl_delay(self) -> Optional[float]: ...
    @property
    def sitemaps(self) -> List[str]: ...
    @property
    def hosts(self) -> List[str]: ...
    @property
    def licenses(self) -> List[str]: ...
    @property
    def request_rate(self) -> Optional[RequestRate]: ...
    @property
    def request_rates(self) -> List[RequestRate]: ...
    @property
    def visit_time(self) -> Optional[VisitTime]: ...
    @property
    def visit_times(self) -> List[VisitTime]: ...
    @property
    def diagnostics(self) -> List[Diagnostic]:
        """The compiler's findings (compile()'s policy is compiled now if not yet, as for to_bytes)."""
    @property
    def compiled(self) -> bool:
        """Whether the automaton is built (else the policy answers from its rules, alike)."""

class Store:
    """The policies of many hosts in one memory-mapped file, or a store set (a directory)."""

    @staticmethod
    def open(path: _Path) -> Store: ...
    @staticmethod
    def from_bytes(data: _Bytes) -> Store: ...
    def close(self) -> None:
        """Releases the artifact; every method then raises ValueError."""
    @property
    def closed(self) -> bool: ...
    def __enter__(self: _Self) -> _Self: ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool: ...
    def allowed(self, url: _Url) -> Optional[bool]: ...
    def check(self, url: _Url) -> Optional[Verdict]: ...
    def check_each(self, url: _Url) -> Optional[Dict[str, Verdict]]:
        """Each agent's verdict by the host's policy (a store built with each_agent=True); None for a host not in the store."""
    def allowed_many(self, urls: Iterable[_Url]) -> List[Optional[bool]]: ...
    def preference(self, url: _Url, usage: str) -> Optional[bool]:
        """As Policy.preference; None also for a host not in the store."""
    def usage_states(self, url: _Url) -> Optional[Dict[str, Optional[bool]]]:
        """As Policy.usage_states; None for a host not in the store."""
    def policy_for(self, url: _Url) -> Optional[Policy]: ...
    @property
    def agent(self) -> str: ...
    @property
    def dialect(self) -> str: ...
    @property
    def host_count(self) -> int: ...
    @property
    def policy_count(self) -> int: ...
    @property
    def shard_count(self) -> int: ...
    def __len__(self) -> int: ...

class FetchDecision:
    """What one robots.txt fetch decided (Fetch.answer, Fetch.fail)."""

    @property
    def decision(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def hold(self) -> int: ...
    @property
    def failure(self) -> bool: ...
    @property
    def body(self) -> Optional[bytes]: ...
    @property
    def url(self) -> str: ...
    @property
    def validators(self) -> Tuple[Optional[str], Optional[str]]: ...
    @property
    def diagnostics(self) -> List[str]: ...

class FetchRules:
    """The fetch rules' settings (docs/fetch.md)."""

    def __init__(
        self,
        *,
        redirects: str = "same-origin",
        max_redirects: int = 5,
        max_hold: int = 86400,
        min_hold: int = 60,
        failure_hold: int = 300,
        keep_last_good: int = 2592000,
        after_outage: str = "unavailable",
        parse_limit: int = 512000,
        html_is_unreachable: bool = False,
    ) -> None: ...
    @property
    def failure_hold(self) -> int: ...
    @property
    def max_hold(self) -> int: ...

class Fetch:
    """One robots.txt request followed to its decision (RFC 9309 §2.3.1)."""

    def __init__(self, robots_url: str, rules: Optional[FetchRules] = None) -> None: ...
    @property
    def url(self) -> str: ...
    @property
    def hops(self) -> int: ...
    def answer(
        self,
        status: int,
        headers: Optional[Mapping[str, str]] = None,
        body: Optional[bytes] = None,
        *,
        now: Optional[float] = None,
    ) -> Union[str, FetchDecision]: ...
    def fail(self, kind: str, *, now: Optional[float] = None) -> FetchDecision: ...

class CacheAnswer:
    """What RobotsCache.check answers; no truth value: compare it."""

    ALLOW: ClassVar[CacheAnswer]
    DISALLOW: ClassVar[CacheAnswer]
    FETCH: ClassVar[CacheAnswer]
    WAIT: ClassVar[CacheAnswer]
    def __bool__(self) -> NoReturn: ...

class RobotsCache:
    """Hosts → robots.txt decisions, bounded, one fetch in flight per host."""

    def __init__(
        self,
        agent: str,
        rules: Optional[FetchRules] = None,
        *,
        max_hosts: int = 100000,
        max_bytes: int = 1073741824,
        fetch_timeout: int = 120,
    ) -> None: ...
    def fetch(self, robots_url: str) -> Fetch: ...
    def ask(self, host: str, *, now: Optional[float] = None) -> str: ...
    def check(self, host: str, url: str, *, now: Optional[float] = None) -> CacheAnswer: ...
    def report(self, host: str, decision: FetchDecision, *, now: Optional[float] = None) -> str: ...
    def held(self, host: str) -> Optional[Tuple[str, str, int, bool]]: ...
    def __len__(self) -> int: ...

class StoreReport:
    """What build_store did."""

    @property
    def hosts(self) -> int: ...
    @property
    def unique_policies(self) -> int: ...
    @property
    def compiled(self) -> int: ...
    @property
    def reused(self) -> int: ...
    @property
    def bodies_read(self) -> int: ...
    @property
    def bodies_skipped(self) -> int: ...
    @property
    def bytes(self) -> int: ...
    @property
    def by_source(self) -> Dict[str, int]: ...
    @property
    def split(self) -> List[Tuple[str, str]]: ...
    @property
    def unread(self) -> List[Tuple[str, str]]: ...
    @property
    def failures(self) -> List[Tuple[str, str]]: ...
    @property
    def duplicates(self) -> List[str]: ...
    @property
    def not_modified(self) -> int: ...
    @property
    def not_modified_lost(self) -> List[Tuple[str, str]]: ...

def compile(
    robots: _Body,
    agent: Union[str, Sequence[str]],
    *,
    dialect: str = "rfc9309",
    url_mode: Optional[str] = None,
    robots_txt: str = "allow",
    data_txt: bool = False,
    max_bytes: int = 512000,
    max_line_len: int = 16663,
    max_rules: int = 100000,
    max_states: int = 200000,
    max_table_bytes: int = 268435456,
    max_automata: int = 1024,
    compile_timeout: float = 30.0,
    records_close_groups: bool = False,
    training_agents: Sequence[str] = (),
    preference_grouping: str = "spec",
    purposes: Sequence[str] = (),
    layout: str = "auto",
    references: Mapping[str, _Body] = {},
    eager: bool = False,
    each_agent: bool = False,
) -> Policy: ...
def build_store(
    manifest_path: _Path,
    agent: Union[str, Sequence[str]],
    out_path: _Path,
    *,
    dialect: str = "rfc9309",
    url_mode: Optional[str] = None,
    robots_txt: str = "allow",
    data_txt: bool = False,
    max_bytes: int = 512000,
    max_line_len: int = 16663,
    max_rules: int = 100000,
    max_states: int = 200000,
    max_table_bytes: int = 268435456,
    max_automata: int = 1024,
    compile_timeout: float = 30.0,
    records_close_groups: bool = False,
    training_agents: Sequence[str] = (),
    preference_grouping: str = "spec",
    purposes: Sequence[str] = (),
    layout: str = "auto",
    references: Mapping[str, _Body] = {},
    on_failure: str = "disallow",
    base: Optional[_Path] = None,
    max_store_bytes: int = 4294967295,
    allow_empty: bool = False,
    each_agent: bool = False,
) -> StoreReport: ...
def diff(
    old: _Body,
    new: _Body,
    agent: Union[str, Sequence[str]],
    usage: str = "crawl",
    max_pairs: int = 1000000,
    **options: object,
) -> List[
    Tuple[
        Tuple[bool, Optional[int], Optional[int], Optional[str]],
        Tuple[bool, Optional[int], Optional[int], Optional[str]],
        str,
        bytes,
    ]
]:
    """The change classes as tuples; ``robocc.diff`` wraps them in
    ``robocc.Change``."""
def token_from_header(header: str) -> Optional[str]: ...

# Store sets in parts (robocc.spark): the Rust builder's own pieces.
_Row = Tuple[str, int, Optional[bytes], Optional[str], Optional[str], Optional[str]]

def host_key(host: str) -> str: ...
def shard_of(key: str, shards: int) -> int: ...
def is_self_redirect(key: str, status: int, location: Optional[str] = None) -> bool: ...
def read_warc(path: _Path) -> List[_Row]: ...
def iter_warc(path: _Path) -> WarcIter: ...

class WarcIter:
    """The records of a WARC file, read as they are asked for."""

    def __iter__(self) -> WarcIter: ...
    def __next__(self) -> _Row: ...

def url_host_key(url: str) -> Optional[str]: ...
def read_manifest_line(line: bytes, base_dir: _Path, at: str) -> _Row: ...
def read_manifest_range(path: _Path, start: int, end: int, name: Optional[str] = None) -> ManifestRange: ...

class ManifestRange:
    """The lines of a manifest that start in a byte range, as (offset, row)."""

    def __iter__(self) -> ManifestRange: ...
    def __next__(self) -> Tuple[int, _Row]: ...

def redirect_dependencies(table: List[Tuple[str, int, Optional[str]]]) -> Dict[str, List[str]]: ...
def build_store_shard(
    inputs: List[_Row],
    agent: str,
    shards: int,
    which: int,
    *,
    on_failure: str = "disallow",
    **options: Any,  # robocc.compile's keyword arguments
) -> Tuple[bytes, Tuple[int, int, int], Dict[str, Any]]: ...
def build_store_set(
    inputs: List[_Row],
    agent: str,
    shards: int,
    *,
    on_failure: str = "disallow",
    **options: Any,  # robocc.compile's keyword arguments
) -> Tuple[List[bytes], str, Dict[str, Any]]: ...
def store_set_index(
    agent: str,
    shards: List[Tuple[int, int, int]],
    **options: Any,  # robocc.compile's keyword arguments
) -> str: ...

# robocc survey (docs/survey.md): (columns, distinct policies' facts, hosts).
DEFAULT_MAX_REACH_STATES: int
_PathCells = Tuple[bool, Optional[bool], Optional[bool], Optional[bool]]
_Facts = Tuple[bool, int, List[str], List[Tuple[str, str, List[_PathCells]]]]
_Host = Tuple[str, int, str, str, Optional[str], int]
_Surveyed = Tuple[List[str], List[_Facts], List[_Host]]

def survey_store(store: Store, agents: List[str], paths: List[str], max_reach_states: int) -> _Surveyed: ...
def survey_text(store: Store, agents: List[str], paths: List[str], max_reach_states: int, format: str) -> str: ...
def survey_shard(
    inputs: List[_Row],
    agents: List[str],
    shards: int,
    which: int,
    paths: List[str],
    max_reach_states: int,
    *,
    on_failure: str = "disallow",
    **options: Any,  # robocc.compile's keyword arguments
) -> _Surveyed: ...
