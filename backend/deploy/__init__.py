"""Running ragscope as processes: the scale-out stack on one machine (`stack`)."""
