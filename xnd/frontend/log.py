"""``mx.log`` (MXNet's ``mxnet/log.py``): loggers whose console lines look like MXNet's
(``W1206 04:00:12 4242 file.py:func:12] message``, coloured by level)."""
import logging
import warnings

CRITICAL, ERROR, WARNING = logging.CRITICAL, logging.ERROR, logging.WARNING
INFO, DEBUG, NOTSET = logging.INFO, logging.DEBUG, logging.NOTSET

_LABELS = {CRITICAL: "C", ERROR: "E", WARNING: "W", INFO: "I", DEBUG: "D"}


class _Formatter(logging.Formatter):
    """Level letter and date (``%m%d %H:%M:%S``), pid, path:function:line, then the message;
    red from WARNING up, green for INFO, blue below."""

    def __init__(self):
        super().__init__(datefmt="%m%d %H:%M:%S")

    def format(self, record):
        level = record.levelno
        color = "\x1b[31m" if level >= WARNING else "\x1b[32m" if level >= INFO else "\x1b[34m"
        self._style._fmt = (color + _LABELS.get(level, "U") + "%(asctime)s %(process)d "
                            "%(pathname)s:%(funcName)s:%(lineno)d]\x1b[0m %(message)s")
        return super().format(record)


def get_logger(name=None, filename=None, filemode=None, level=WARNING):
    """``logging.getLogger(name)``, set up once per name: a handler to `filename` (mode
    `filemode`, 'a' by default; plain lines) or to stderr (MXNet's coloured lines), and
    `level`.  The root logger (``name=None``) is returned untouched."""
    logger = logging.getLogger(name)
    if name is not None and not getattr(logger, "_init_done", None):
        logger._init_done = True
        if filename:
            handler = logging.FileHandler(filename, filemode or "a")
        else:
            handler = logging.StreamHandler()
            handler.setFormatter(_Formatter())
        logger.addHandler(handler)
        logger.setLevel(level)
    return logger


def getLogger(name=None, filename=None, filemode=None, level=WARNING):
    """Deprecated spelling of `get_logger` (a DeprecationWarning, as on MXNet)."""
    warnings.warn("getLogger is deprecated, Use get_logger instead.", DeprecationWarning,
                  stacklevel=2)
    return get_logger(name, filename, filemode, level)
