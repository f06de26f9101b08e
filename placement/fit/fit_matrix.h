/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Which guest cell fits which host cell on its own: rows are guest cells (by index),
// columns are host cell positions (indexes into Nova's order, fit.h). The searches
// (assignment_bounds.h, best_assignment.h) read it; they may mask entries of a copy.
#pragma once

#include <cstddef>
#include <vector>

namespace numaplace {

class FitMatrix {
 public:
  FitMatrix() = default;
  // `rows` x `columns`, nothing fitting.
  FitMatrix(std::size_t rows, std::size_t columns) { reset(rows, columns); }

  // Resizes to `rows` x `columns` with nothing fitting; keeps the storage (fit_guest reuses one per thread).
  void reset(std::size_t rows, std::size_t columns) {
    rows_ = rows;
    columns_ = columns;
    cells_.assign(rows * columns, 0);
  }

  // Whether guest cell `row` fits the host cell at position `column`; unchecked, like operator[].
  bool at(std::size_t row, std::size_t column) const { return cells_[row * columns_ + column] != 0; }
  void set(std::size_t row, std::size_t column, bool fits) { cells_[row * columns_ + column] = fits ? 1 : 0; }

  std::size_t rows() const { return rows_; }
  std::size_t columns() const { return columns_; }

 private:
  std::size_t rows_ = 0;
  std::size_t columns_ = 0;
  std::vector<char> cells_;  // row major; char rather than vector<bool> for plain loads
};

}  // namespace numaplace
