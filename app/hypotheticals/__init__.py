"""TD material: a hypothetical played from a moment of a deal, bot rollouts of it, and
the adjusted scores a decision awards from them."""
