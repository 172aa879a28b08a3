"""mx.test_utils, statistical checks of random generators (MXNet's verify_generator,
chi_square_check, gen_buckets_probs_with_ppf, mean_check, var_check), with MXNet's
signatures, defaults and acceptance rules."""
import numpy as np


def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """`nbuckets` equal-probability buckets [(ppf(i/n), ppf((i+1)/n))] and their
    probabilities (1/n each), for chi_square_check of a continuous distribution."""
    assert nbuckets > 0
    probs = [1.0 / nbuckets for _ in range(nbuckets)]
    buckets = [(ppf(i / float(nbuckets)), ppf((i + 1) / float(nbuckets)))
               for i in range(nbuckets)]
    return buckets, probs


def mean_check(generator, mu, sigma, nsamples=1000000):
    """Whether the mean of generator(nsamples) lies within mu +- 3 sigma / sqrt(n)."""
    mean = np.array(generator(nsamples)).mean()
    bound = 3 * sigma / np.sqrt(nsamples)
    return (mean > mu - bound) and (mean < mu + bound)


def var_check(generator, sigma, nsamples=1000000):
    """Whether the sample variance (ddof=1) lies within sigma^2 +- 3 sqrt(2 sigma^4/(n-1))."""
    var = np.array(generator(nsamples)).var(ddof=1)
    bound = 3 * np.sqrt(2 * sigma ** 4 / (nsamples - 1))
    return (var > sigma ** 2 - bound) and (var < sigma ** 2 + bound)


def _chisquare_p(obs, exp):
    """The p value of Pearson's chi-square statistic with len(obs)-1 degrees of freedom,
    as scipy.stats.chisquare gives it (upper regularized incomplete gamma)."""
    obs, exp = np.asarray(obs, np.float64), np.asarray(exp, np.float64)
    stat = float(((obs - exp) ** 2 / exp).sum())
    dof = len(obs) - 1
    try:
        from scipy.special import gammaincc
    except ImportError:
        from jax.scipy.special import gammaincc
    return float(gammaincc(dof / 2.0, stat / 2.0))


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """Chi-square test of generator(nsamples) against `probs` over `buckets`: (p, observed
    counts, expected counts). Continuous buckets are (low, high) tuples in ascending order;
    discrete buckets are the values themselves. Expected counts are MXNet's
    int32(nsamples * float32(probs))."""
    assert isinstance(buckets, list)
    samples = generator(nsamples)
    if hasattr(samples, "asnumpy"):
        samples = samples.asnumpy()
    assert len(probs) == len(buckets)
    continuous = isinstance(buckets[0], (list, tuple))
    expected = (nsamples * np.array(probs, dtype=np.float32)).astype(np.int32)
    obs = np.zeros(len(buckets), dtype=np.int64)
    if continuous:
        edges = np.zeros(len(buckets) * 2, dtype=np.float32)
        for i, (lo, hi) in enumerate(buckets):
            assert lo <= hi
            if i < len(buckets) - 1:
                assert hi <= buckets[i + 1][0]
            edges[2 * i], edges[2 * i + 1] = lo, hi
        ids = np.searchsorted(edges, samples, side="right") // 2
        for i in range(len(buckets)):
            obs[i] = (ids == i).sum()
    else:
        samples = np.array(samples)
        for i, b in enumerate(buckets):
            obs[i] = (samples == b).sum()
    return _chisquare_p(obs, expected), obs, expected


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5, success_rate=0.2,
                     alpha=0.05):
    """Run chi_square_check `nrepeat` times; AssertionError unless at least
    nrepeat * success_rate of the p values exceed `alpha`. Returns the p values."""
    ps, obs_l, exp_l = [], [], []
    for _ in range(nrepeat):
        p, obs, exp = chi_square_check(generator, buckets, probs, nsamples)
        ps.append(p)
        obs_l.append(obs)
        exp_l.append(exp)
    if (np.array(ps) > alpha).sum() < nrepeat * success_rate:
        raise AssertionError(
            "Generator test fails, Chi-square p=%s, obs_freq=%s, expected_freq=%s."
            "\nbuckets=%s, probs=%s" % (ps, obs_l, exp_l, buckets, probs))
    return ps
