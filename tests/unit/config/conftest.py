import pytest


@pytest.fixture
def write(tmp_path, monkeypatch):
    """Write a file under a temporary current directory and return its name."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ONECC_OPTIMIZATION_PATH", raising=False)

    def write(name: str, text: str) -> str:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return name

    return write
