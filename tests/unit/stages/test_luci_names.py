"""Every registered pass has luci's class name for the pass log (LUCI_LOG, -V)."""

from one_cmds.passes import load_passes
from one_cmds.stages.optimize.luci_names import LUCI_NAMES, luci_name


def test_every_pass_has_its_luci_name():
    assert set(load_passes()) == set(LUCI_NAMES)
    assert luci_name("make_batchnorm_gamma_positive") == "luci::MakeBatchNormGammaPositivePass"
    assert all(name.endswith("Pass") and name[0].isupper() for name in LUCI_NAMES.values())
